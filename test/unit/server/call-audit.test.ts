// Every MCP surface goes through the call pipeline and is audited exactly
// once: tools, direct tools, the mcc://session resource and the prompts,
// with refusals (a declined form) written by the pipeline too. Through the
// SDK's Client, connected in-process to a server over the real runtime.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadCatalog } from '../../../src/core/catalog/load';
import { openRuntime, type OpenedRuntime } from '../../../src/core/open-runtime';
import type { AuditEntry } from '../../../src/core/runtime';
import { createServer } from '../../../src/core/server/create-server';
import { MINIMAL_SECRETS } from '../../../src/core/secrets';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import type { Principal } from '../../../src/core/identity';

const OWNER: Principal = { user: 'owner', email: '', groups: ['admin'], grants: [] };

function catalogFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-call-audit-'));
  const yaml = [
    'groups: [ops]',
    'tools:',
    "  - {name: echo, description: says a word, exec: 'echo {{ word }}', params: [{name: word, type: str, required: true}]}",
  ].join('\n');
  writeFileSync(join(dir, 'tools.yaml'), yaml);
  return join(dir, 'tools.yaml');
}

async function connect(opened: OpenedRuntime, form: 'accept' | 'decline' | undefined): Promise<Client> {
  const server = createServer({ runtime: opened.runtime, principal: OWNER, fixedBucketKey: 'bucket-a' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'audit-test', version: '1' }, form ? { capabilities: { elicitation: { form: {} } } } : {});
  if (form) {
    client.setRequestHandler(ElicitRequestSchema, () => (form === 'accept' ? { action: 'accept', content: { word: 'asked' } } : { action: 'decline' }));
  }
  await client.connect(b);
  return client;
}

describe('one audit entry per call, for every MCP surface', () => {
  let opened: OpenedRuntime;
  const audits: AuditEntry[] = [];
  before(async () => {
    opened = await openRuntime({ storage: new MemoryStorage(), sweepIntervalMs: 0, expose: 'both', execMode: 'pipe', secrets: MINIMAL_SECRETS, onAudit: (a) => audits.push(a) });
    opened.runtime.catalog.set(await loadCatalog([catalogFile()], { env: {} }));
  });
  after(async () => {
    await opened.runtime.shutdown();
    opened.store.dispose();
  });

  test('the session resource and each prompt are audited, in the caller\'s bucket', async () => {
    const client = await connect(opened, undefined);
    audits.length = 0;
    await client.callTool({ name: 'set_session', arguments: { name: 'target', value: 'x' } });
    const read = await client.readResource({ uri: 'mcc://session' });
    assert.match(String((read.contents[0] as { text: string }).text), /"target": "x"/);
    await client.getPrompt({ name: 'find_and_run', arguments: { task: 'say hello' } });
    await client.getPrompt({ name: 'debug_error', arguments: { key: 'ops.echo', error: 'boom' } });
    await assert.rejects(client.getPrompt({ name: 'explain_tool', arguments: { key: 'ops.nope' } }));
    assert.deepEqual(
      audits.map((a) => [a.toolKey, a.code, a.bucketKey]),
      [
        ['set_session', 0, 'bucket-a'],
        ['resource:mcc://session', 0, 'bucket-a'],
        ['prompt:find_and_run', 0, 'bucket-a'],
        ['prompt:debug_error', 0, 'bucket-a'],
        ['prompt:explain_tool', 'error', 'bucket-a'],
      ],
    );
    assert.match(audits[4].error ?? '', /No tool 'ops.nope'/);
    await client.close();
  });

  test('a declined form is refused and audited once by the pipeline; an accepted one runs with the answer', async () => {
    const declining = await connect(opened, 'decline');
    audits.length = 0;
    const refused = await declining.callTool({ name: 'execute', arguments: { key: 'ops.echo', params: {} } });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /declined to give 'word'/);
    assert.deepEqual(audits.map((a) => [a.toolKey, a.code]), [['ops.echo', 'error']]);
    await declining.close();

    const accepting = await connect(opened, 'accept');
    audits.length = 0;
    const ran = await accepting.callTool({ name: 'ops__echo', arguments: {} });
    assert.equal(ran.isError, undefined);
    assert.match(JSON.stringify(ran.content), /asked/);
    assert.deepEqual(audits.map((a) => [a.toolKey, a.code, a.params]), [['ops.echo', 0, { word: 'asked' }]]);
    await accepting.close();
  });
});
