// Prompts, resources (and subscriptions), completions and direct tools,
// through the SDK's Client against the real `mcc serve` over HTTP.
import { SESSION_ARG } from '../../src/core/server/tools/session-arg';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type TextResourceContents,
} from '@modelcontextprotocol/sdk/types.js';
import { REPO, call, connect, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

const AGENT = join(REPO, 'test', 'fixtures', 'agent');
const TOOLS = join(AGENT, 'tools.yaml');
const USERS = join(AGENT, 'users.yaml');
const OLGA = 'olga-token-0123456789abcdef';
const NINA = 'nina-token-0123456789abcdef';

const toolNames = async (c: Client): Promise<string[]> => (await c.listTools()).tools.map((t) => t.name).sort();
const resourceText = async (c: Client, uri: string, mime = 'text/markdown'): Promise<string> => {
  const r = await c.readResource({ uri });
  const part = r.contents.find((x) => x.mimeType === mime) as TextResourceContents | undefined;
  if (!part) throw new Error(`${uri} has no ${mime} content`);
  return part.text;
};

/** Resolves once `ok()` holds, or rejects after a while. */
async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('prompts, resources and completions (mcc serve --expose both)', () => {
  let h: ServeHandle;
  let owner: Client;
  let olga: Client;
  before(async () => {
    h = await startServe(['--tools', TOOLS, '--users', USERS, '--state', join(tempDir(), 's.json'), '--user', 'sam', '--expose', 'both']);
    owner = await connect(h);
    olga = await connect(h, { token: OLGA });
  });
  after(async () => {
    await owner.close();
    await olga.close();
    assert.equal(await h.stop(), 0);
  });

  test("prompts/list has MCC's three prompts with described arguments", async () => {
    const { prompts } = await owner.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['find_and_run', 'explain_tool', 'debug_error']);
    const args = Object.fromEntries(prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => `${a.name}${a.required ? '!' : ''}`)]));
    assert.deepEqual(args, { find_and_run: ['task!'], explain_tool: ['key!'], debug_error: ['key!', 'error!'] });
    assert.ok(prompts.every((p) => p.description && (p.arguments ?? []).every((a) => a.description)));
  });

  test('find_and_run tells the model how to search, execute and use the session store, for this catalog and session', async () => {
    await okText(owner, 'set_session', { name: 'target', value: '10.0.0.5' });
    const r = await owner.getPrompt({ name: 'find_and_run', arguments: { task: 'ping the gateway' } });
    const t = r.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    assert.equal(r.messages[0].role, 'user');
    assert.match(t, /Task: ping the gateway/);
    assert.match(t, /search\(query=/);
    assert.match(t, /describe_tools\(\)` lists all 6 tools you can run \(groups: admin, net, ops, ops-east, public\)/);
    assert.match(t, /execute\(key="<key>", params=\{\.\.\.\}\)/);
    assert.match(t, /"\." written "__"/, 'mentions the direct tools, which --expose both offers');
    assert.match(t, /set_session\(name, value\)/);
    assert.match(t, /Already set in this session: target\./);
  });

  test('explain_tool inlines the signature and where the tool is defined; unknown and forbidden keys are refused alike', async () => {
    const r = await owner.getPrompt({ name: 'explain_tool', arguments: { key: 'net.ping' } });
    const t = r.messages[0].content.type === 'text' ? r.messages[0].content.text : '';
    assert.match(t, /## net\.ping \(host:str, count:int, verbose:bool=False\) -> str/);
    assert.match(t, new RegExp(`defined in ${TOOLS.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+`));
    assert.match(t, /execute\(key="net\.ping"/);
    await assert.rejects(owner.getPrompt({ name: 'explain_tool', arguments: { key: 'no.such' } }), /No tool 'no\.such' you can run/);
    await assert.rejects(olga.getPrompt({ name: 'explain_tool', arguments: { key: 'net.ping' } }), /No tool 'net\.ping' you can run/);
  });

  test('debug_error carries the error and the entry, and still answers for a key that is not there', async () => {
    const r = await owner.getPrompt({ name: 'debug_error', arguments: { key: 'net.ping', error: "Invalid parameters for 'net.ping': missing required parameter 'count' (int)" } });
    const t = r.messages[0].content.type === 'text' ? r.messages[0].content.text : '';
    assert.match(t, /missing required parameter 'count'/);
    assert.match(t, /## net\.ping/);
    assert.match(t, /get_session\(name\)/);
    const u = await owner.getPrompt({ name: 'debug_error', arguments: { key: 'nope.x', error: 'Unknown tool' } });
    assert.match(u.messages[0].content.type === 'text' ? u.messages[0].content.text : '', /There is no tool 'nope\.x' you can run/);
  });

  test('completion/complete: prompt keys and the resource template, keys the caller may run, by prefix', async () => {
    const complete = async (c: Client, ref: Parameters<Client['complete']>[0]['ref'], value: string) => (await c.complete({ ref, argument: { name: 'key', value } })).completion;
    assert.deepEqual((await complete(owner, { type: 'ref/prompt', name: 'explain_tool' }, 'ne')).values, ['net.ping', 'net.scan']);
    assert.deepEqual((await complete(owner, { type: 'ref/prompt', name: 'debug_error' }, 'ops')).values, ['ops-east.rollout', 'ops.deploy']);
    const all = await complete(owner, { type: 'ref/resource', uri: 'mcc://tools/{key}' }, '');
    assert.equal(all.values.length, 6);
    assert.equal(all.hasMore, false);
    // olga's "ops.*" reaches ops and ops-east (and public), never admin or net.
    assert.deepEqual((await complete(olga, { type: 'ref/resource', uri: 'mcc://tools/{key}' }, '')).values, ['ops-east.rollout', 'ops.deploy', 'public.hello']);
    assert.deepEqual((await complete(olga, { type: 'ref/prompt', name: 'explain_tool' }, 'ad')).values, []);
    // The task argument has no completion; MCP has none for tool arguments either.
    assert.deepEqual((await owner.complete({ ref: { type: 'ref/prompt', name: 'find_and_run' }, argument: { name: 'task', value: 'p' } })).completion.values, []);
  });

  test('mcc://tools/{key} is listed and templated for the tools the caller may run, with signature, params and file:line', async () => {
    const listed = (await olga.listResources()).resources.map((r) => r.uri).sort();
    assert.deepEqual(listed, ['mcc://session', 'mcc://tools/ops-east.rollout', 'mcc://tools/ops.deploy', 'mcc://tools/public.hello']);
    const templates = (await owner.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.deepEqual(templates, ['mcc://tools/{key}']);
    const md = await resourceText(owner, 'mcc://tools/net.ping');
    assert.match(md, /^## net\.ping \(host:str, count:int, verbose:bool=False\) -> str/);
    assert.match(md, /- host: Host name or address \(example: '10\.0\.0\.5'\)/);
    const line = readFileSync(TOOLS, 'utf8').split('\n').findIndex((l) => l.includes('name: ping')) + 1;
    assert.match(md, new RegExp(`defined in: .*tools\\.yaml:${line}\\b`));
    const json = JSON.parse(await resourceText(owner, 'mcc://tools/net.ping', 'application/json')) as Record<string, unknown>;
    assert.deepEqual((json.inputSchema as { required: string[] }).required, ['host', 'count']);
    assert.deepEqual(json.source, { file: TOOLS, line });
    // Another caller's tool reads like a missing one.
    await assert.rejects(olga.readResource({ uri: 'mcc://tools/net.ping' }), /Resource not found: mcc:\/\/tools\/net\.ping/);
    await assert.rejects(olga.readResource({ uri: 'mcc://tools/none.here' }), /Resource not found: mcc:\/\/tools\/none\.here/);
  });

  test('mcc://session is the caller\'s own bucket as JSON, identity included; never another caller\'s', async () => {
    await okText(olga, 'set_session', { name: 'mine', value: [1, 2] });
    const own = JSON.parse(await resourceText(olga, 'mcc://session', 'application/json')) as Record<string, unknown>;
    assert.deepEqual(own, { mine: [1, 2], user: 'olga', email: '', groups: ['ops.*'], tools: ['ops-east.rollout', 'ops.deploy', 'public.hello'] });
    const sams = JSON.parse(await resourceText(owner, 'mcc://session', 'application/json')) as Record<string, unknown>;
    assert.equal(sams.user, 'sam');
    assert.equal('mine' in sams, false);
  });

  test('subscribers to mcc://session hear of their own changes only', async () => {
    const heard: string[] = [];
    olga.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
    await olga.subscribeResource({ uri: 'mcc://session' });
    // Another caller's change first, then our own: only ours is announced.
    await okText(owner, 'set_session', { name: 'noise', value: 1 });
    await okText(olga, 'set_session', { name: 'cursor', value: 7 });
    await until('the update notification', () => heard.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(heard, ['mcc://session']);
    const now = JSON.parse(await resourceText(olga, 'mcc://session', 'application/json')) as Record<string, unknown>;
    assert.equal(now.cursor, 7);
    await olga.unsubscribeResource({ uri: 'mcc://session' });
    await okText(olga, 'set_session', { name: 'cursor', value: 8 });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(heard.length, 1, 'no notification after unsubscribe');
    await assert.rejects(olga.subscribeResource({ uri: 'mcc://tools/net.ping' }), /Resource not found/);
  });
});

describe('direct tools', () => {
  test('--expose direct: each catalog tool the caller may run, plus get_session/set_session; typed schemas and annotations', async () => {
    const h = await startServe(['--tools', TOOLS, '--users', USERS, '--state', join(tempDir(), 's.json'), '--expose', 'direct']);
    const c = await connect(h, { token: NINA });
    try {
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['get_session', 'net__ping', 'net__scan', 'public__hello', 'set_session']);
      const ping = tools.find((t) => t.name === 'net__ping')!;
      assert.deepEqual(ping.inputSchema.required, ['host', 'count']);
      assert.deepEqual(ping.inputSchema.properties, {
        host: { type: 'string', description: 'Host name or address', examples: ['10.0.0.5'] },
        count: { type: 'integer', description: 'How many pings', examples: [3] },
        verbose: { type: 'boolean', default: false },
        session: { type: 'string', description: SESSION_ARG.description },
      });
      assert.equal((ping.inputSchema as { additionalProperties?: unknown }).additionalProperties, false);
      assert.deepEqual(ping.annotations, { readOnlyHint: true, openWorldHint: true, title: 'net.ping' });
      assert.match(ping.description ?? '', /^Pings a host a number of times\.\n\nnet\.ping \(host:str, count:int/);
      assert.equal(tools.find((t) => t.name === 'net__scan')!.annotations?.readOnlyHint, undefined, 'no read-only claim the catalog does not make');
      // The same runtime path as execute: coercion, validation errors naming the param, the session store.
      assert.equal(await okText(c, 'net__ping', { host: 'gw', count: '2' }), 'ping gw x2\n');
      const bad = await call(c, 'net__ping', { host: 'gw', count: 'many', extra: 1 });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /unknown parameter 'extra'.*parameter 'count' must be an integer/);
      const missing = await call(c, 'net__ping', { host: 'gw' });
      assert.match(text(missing), /missing required parameter 'count'/, 'without elicitation support: the error as before');
      // A tool the caller may not run is not there: the protocol's unknown-tool error (-32602), as for any unknown name.
      await assert.rejects(call(c, 'ops__deploy', { target: 'x' }), (e: { code?: number; message?: string }) => e.code === -32602 && /Tool ops__deploy not found/.test(e.message ?? ''));
      // Every call was audited like an execute call, under the tool's key.
      await until('the audit lines', () => /call nina \S+ net\.ping \{"host":"gw"\} -> error/.test(h.stderr()));
      assert.match(h.stderr(), /call nina \S+ net\.ping \{"host":"gw","count":2,"verbose":false\} -> 0/);
      assert.match(h.stderr(), /call nina \S+ net\.ping .* -> error \(Invalid parameters for 'net\.ping'.*\) in \d+ ms/);
    } finally {
      await c.close();
      assert.equal(await h.stop(), 0);
    }
  });

  test('--expose catalog (the CLI default) offers the five catalog tools only; auto offers both for a small catalog', async () => {
    for (const [expose, direct] of [[undefined, false], ['auto', true]] as const) {
      const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json'), ...(expose ? ['--expose', expose] : [])]);
      const c = await connect(h);
      try {
        const names = await toolNames(c);
        for (const n of ['describe_tools', 'execute', 'get_session', 'search', 'set_session']) assert.ok(names.includes(n), `${n} missing with ${expose}`);
        assert.equal(names.includes('net__ping'), direct, `${String(expose)}: ${names.join(', ')}`);
      } finally {
        await c.close();
        await h.stop();
      }
    }
  });

  test('a catalog edit sends tools/list_changed (once) and resources/list_changed; the new tool is then listed and callable', async () => {
    const dir = tempDir();
    const file = join(dir, 'tools.yaml');
    copyFileSync(TOOLS, file);
    const h = await startServe(['--tools', file, '--state', join(dir, 's.json'), '--expose', 'both', '--watch']);
    const c = await connect(h);
    let toolLists = 0;
    let resourceLists = 0;
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolLists++);
    c.setNotificationHandler(ResourceListChangedNotificationSchema, () => void resourceLists++);
    try {
      assert.equal((await toolNames(c)).includes('net__traceroute'), false);
      writeFileSync(file, `${readFileSync(TOOLS, 'utf8')}\n  - name: traceroute\n    groups: [net]\n    description: Traces the route.\n    params: [{name: host}]\n    exec: 'echo trace {{ host | quote }}'\n`);
      await until('tools/list_changed', () => toolLists > 0);
      await until('resources/list_changed', () => resourceLists > 0);
      assert.ok((await toolNames(c)).includes('net__traceroute'));
      assert.equal(await okText(c, 'net__traceroute', { host: 'gw' }), 'trace gw\n');
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(toolLists, 1, 'one notification for the whole reload');
      assert.ok((await c.listResources()).resources.some((r) => r.uri === 'mcc://tools/net.traceroute'));
    } finally {
      await c.close();
      await h.stop();
    }
  });
});
