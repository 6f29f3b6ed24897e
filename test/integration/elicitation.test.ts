// Elicitation: execute (and a direct tool) with missing required scalar
// params asks the user in one form, through the SDK's Client against the
// real `mcc serve`; the client here answers accept, decline or cancel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequestFormParams, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO, call, startServe, tempDir, text, type ServeHandle } from './serve-process';

const TOOLS = join(REPO, 'test', 'fixtures', 'agent', 'tools.yaml');

interface Asker {
  client: Client;
  asked: ElicitRequestFormParams[];
}

/** A client that can show forms and answers each with `answer`. */
async function asker(h: ServeHandle, answer: (p: ElicitRequestFormParams) => ElicitResult): Promise<Asker> {
  const asked: ElicitRequestFormParams[] = [];
  const client = new Client({ name: 'form-client', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    if (req.params.mode === 'url') throw new Error('this client shows forms only');
    asked.push(req.params);
    return answer(req.params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { Authorization: `Bearer ${h.token}` } } }));
  return { client, asked };
}

describe('elicitation of missing required parameters', () => {
  let h: ServeHandle;
  const clients: Client[] = [];
  const open = async (answer: (p: ElicitRequestFormParams) => ElicitResult): Promise<Asker> => {
    const a = await asker(h, answer);
    clients.push(a.client);
    return a;
  };
  before(async () => {
    h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json'), '--user', 'eli', '--expose', 'both']);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    assert.equal(await h.stop(), 0);
  });

  test('accept: one form asks for every missing one (types, descriptions, examples); the answers run the tool', async () => {
    const { client, asked } = await open(() => ({ action: 'accept', content: { host: 'gw', count: 3 } }));
    const r = await call(client, 'execute', { key: 'net.ping', params: { verbose: true } });
    assert.equal(r.isError, undefined, text(r));
    assert.equal(text(r), 'ping gw x3 -v\n');
    assert.equal(asked.length, 1, 'one form for both');
    const form = asked[0];
    assert.match(form.message, /'net\.ping' needs host, count/);
    assert.deepEqual(form.requestedSchema, {
      type: 'object',
      properties: {
        host: { type: 'string', title: 'host', description: 'Host name or address — e.g. 10.0.0.5' },
        count: { type: 'integer', title: 'count', description: 'How many pings — e.g. 3' },
      },
      required: ['host', 'count'],
    });
  });

  test('only the missing ones are asked for; a direct tool asks the same way', async () => {
    const { client, asked } = await open(() => ({ action: 'accept', content: { count: 1 } }));
    assert.equal(text(await call(client, 'net__ping', { host: 'db' })), 'ping db x1\n');
    assert.deepEqual(asked[0].requestedSchema.required, ['count']);
  });

  test('answers are validated like any params: a value the runtime refuses runs nothing', async () => {
    const { client } = await open(() => ({ action: 'accept', content: { host: 'gw', count: 2 ** 60 } }));
    const r = await call(client, 'execute', { key: 'net.ping', params: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /Invalid parameters for 'net\.ping': parameter 'count' must be an integer/);
  });

  test('an answer that does not fit the form is an error, and nothing runs', async () => {
    const { client } = await open(() => ({ action: 'accept', content: { host: 'gw', count: 'three' } }));
    const r = await call(client, 'execute', { key: 'net.ping', params: {} });
    assert.equal(r.isError, true);
    assert.match(text(r), /'net\.ping' did not run: asking the user for 'host', 'count' failed: .*does not match/);
  });

  test('decline and cancel: a clear error result, nothing runs, and the call is audited', async () => {
    const { client: decliner } = await open(() => ({ action: 'decline' }));
    const d = await call(decliner, 'execute', { key: 'ops.deploy', params: {} });
    assert.equal(d.isError, true);
    assert.match(text(d), /^'ops\.deploy' did not run: the user declined to give 'target'\./);
    const { client: canceller } = await open(() => ({ action: 'cancel' }));
    const c = await call(canceller, 'ops__deploy', {});
    assert.equal(c.isError, true);
    assert.match(text(c), /^'ops\.deploy' did not run: the user cancelled the form asking for 'target'\./);
    // The audit lines reach our pipe a moment after the answers.
    const audited = /call eli \S+ ops\.deploy \{\} -> error \('ops\.deploy' did not run: the user cancelled.*\) in \d+ ms/;
    for (let i = 0; i < 100 && !audited.test(h.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(h.stderr(), audited);
    assert.match(h.stderr(), /call eli \S+ ops\.deploy \{\} -> error \('ops\.deploy' did not run: the user declined.*\) in \d+ ms/);
    assert.doesNotMatch(h.stderr(), /run \S+ ops\.deploy/, 'the tool never started');
  });

  test('no form for a missing list, for unknown tools or without the capability: the error stays as before', async () => {
    const { client, asked } = await open(() => ({ action: 'accept', content: {} }));
    const list = await call(client, 'execute', { key: 'net.scan', params: { host: 'gw' } });
    assert.match(text(list), /missing required parameter 'ports' \(list\)/);
    const unknown = await call(client, 'execute', { key: 'net.nothing' });
    assert.match(text(unknown), /Unknown tool 'net\.nothing'/);
    assert.equal(asked.length, 0);
    const plain = new Client({ name: 'no-forms', version: '1' });
    clients.push(plain);
    await plain.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { Authorization: `Bearer ${h.token}` } } }));
    assert.match(text(await call(plain, 'execute', { key: 'net.ping', params: { host: 'gw' } })), /Invalid parameters for 'net\.ping': missing required parameter 'count' \(int\)/);
  });
});
