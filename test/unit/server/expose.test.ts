// The expose mode as the editor changes it live (mcc.tools.expose), and the
// `auto` rule, through the SDK's Client connected in-process to a server
// over the real runtime.
import { after, before, describe, test } from 'node:test';
import { MINIMAL_SECRETS } from '../../../src/core/secrets';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { loadCatalog } from '../../../src/core/catalog/load';
import { openRuntime, type OpenedRuntime } from '../../../src/core/open-runtime';
import { createServer } from '../../../src/core/server/create-server';
import { AUTO_DIRECT_LIMIT, exposure } from '../../../src/core/expose';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import type { Principal } from '../../../src/core/identity';

const OWNER: Principal = { user: 'owner', email: '', groups: ['admin'], grants: [] };

function catalogFile(tools: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-expose-'));
  const lines = ['groups: [gen]', 'tools:'];
  for (let i = 0; i < tools; i++) lines.push(`  - {name: t${i}, description: tool ${i}, exec: 'echo ${i}'}`);
  writeFileSync(join(dir, 'tools.yaml'), lines.join('\n'));
  return join(dir, 'tools.yaml');
}

async function connected(opened: OpenedRuntime): Promise<{ client: Client; changes: () => number }> {
  const server = createServer({ runtime: opened.runtime, principal: OWNER, fixedBucketKey: 'k' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'expose-test', version: '1' });
  let n = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void n++);
  await client.connect(b);
  return { client, changes: () => n };
}

const names = async (c: Client): Promise<string[]> => (await c.listTools()).tools.map((t) => t.name).sort();
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

describe('expose mode', () => {
  let opened: OpenedRuntime;
  before(async () => {
    opened = await openRuntime({ storage: new MemoryStorage(), sweepIntervalMs: 0, expose: 'catalog', execMode: 'pipe', secrets: MINIMAL_SECRETS });
    opened.runtime.catalog.set(await loadCatalog([catalogFile(3)], { env: {} }));
  });
  after(async () => {
    await opened.runtime.shutdown();
    opened.store.dispose();
  });

  test('auto: both up to the limit, the catalog tools alone past it', () => {
    assert.deepEqual(exposure('auto', AUTO_DIRECT_LIMIT), { catalogTools: true, directTools: true });
    assert.deepEqual(exposure('auto', AUTO_DIRECT_LIMIT + 1), { catalogTools: true, directTools: false });
    assert.deepEqual(exposure('direct', 0), { catalogTools: false, directTools: true });
  });

  test('a live change of the mode updates the tool list of a connected client, one notification each', async () => {
    const { client, changes } = await connected(opened);
    assert.deepEqual(await names(client), ['describe_tools', 'execute', 'get_session', 'search', 'set_session']);
    opened.runtime.catalog.setExpose('direct');
    await settle();
    assert.equal(changes(), 1);
    assert.deepEqual(await names(client), ['gen__t0', 'gen__t1', 'gen__t2', 'get_session', 'set_session']);
    opened.runtime.catalog.setExpose('both');
    await settle();
    assert.equal(changes(), 2);
    assert.equal((await names(client)).length, 8);
    // The same mode again, or a reload that changes nothing: no notification.
    opened.runtime.catalog.setExpose('both');
    opened.runtime.catalog.set(await loadCatalog([catalogFile(3)], { env: {} }));
    await settle();
    assert.equal(changes(), 2);
    await client.close();
  });

  test('completions stop at 100 keys and say there are more', async () => {
    opened.runtime.catalog.set(await loadCatalog([catalogFile(120)], { env: {} }));
    const { client } = await connected(opened);
    const all = (await client.complete({ ref: { type: 'ref/resource', uri: 'mcc://tools/{key}' }, argument: { name: 'key', value: 'gen.' } })).completion;
    assert.equal(all.values.length, 100);
    assert.equal(all.hasMore, true);
    assert.equal(all.total, 120);
    const few = (await client.complete({ ref: { type: 'ref/prompt', name: 'explain_tool' }, argument: { name: 'key', value: 'gen.t11' } })).completion;
    assert.deepEqual(few.values, ['gen.t11', 'gen.t110', 'gen.t111', 'gen.t112', 'gen.t113', 'gen.t114', 'gen.t115', 'gen.t116', 'gen.t117', 'gen.t118', 'gen.t119']);
    assert.equal(few.hasMore, false);
    await client.close();
  });

  test(`auto with more than ${AUTO_DIRECT_LIMIT} tools: the catalog tools only`, async () => {
    opened.runtime.catalog.setExpose('auto');
    opened.runtime.catalog.set(await loadCatalog([catalogFile(AUTO_DIRECT_LIMIT + 1)], { env: {} }));
    const { client } = await connected(opened);
    assert.deepEqual(await names(client), ['describe_tools', 'execute', 'get_session', 'search', 'set_session']);
    opened.runtime.catalog.set(await loadCatalog([catalogFile(AUTO_DIRECT_LIMIT)], { env: {} }));
    await settle();
    assert.equal((await names(client)).length, AUTO_DIRECT_LIMIT + 5);
    await client.close();
  });
});
