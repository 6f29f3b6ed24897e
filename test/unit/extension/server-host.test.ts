import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadCatalog } from '../../../src/core/catalog/load';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLogger } from '../../../src/core/host';
import { nullEventSink } from '../../../src/core/tool-run/contract';
import { bucketIdOf } from '../../../src/core/session/store';
import { BUCKET_KEY_PREFIX, MementoStorage } from '../../../src/extension/memento-storage';
import { ServerHost, type ServerHostOptions } from '../../../src/extension/server-host';
import { definitionData } from '../../../src/extension/connection';
import { readSettings, type Settings } from '../../../src/extension/settings';
import { FakeMemento } from './fakes';

function host(over: Partial<ServerHostOptions> = {}, settings: Partial<Settings> = {}) {
  const memento = new FakeMemento();
  const warnings: string[] = [];
  const base = readSettings({ get: () => undefined }, () => 'owner');
  const h = new ServerHost({
    storage: new MementoStorage(memento),
    settings: () => ({ ...base, ...settings }),
    logger: silentLogger,
    events: nullEventSink,
    onAudit: () => undefined,
    gate: () => undefined,
    warn: (m) => warnings.push(m),
    resolvePath: (p) => p,
    mayReadWorkspaceFiles: () => true,
    workspaceFolders: () => [],
    ...over,
  });
  return { h, memento, warnings };
}

void describe('ServerHost', () => {
  void test('serves on 127.0.0.1 and refuses calls without the token', async () => {
    const { h } = host();
    await h.start();
    assert.equal(h.state, 'running');
    assert.match(h.url!, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const res = await fetch(h.url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401);
    await h.dispose();
    assert.equal(h.url, undefined);
  });

  void test("VS Code's headers land the agent's set_session in the owner's workspace bucket", async () => {
    const { h, memento } = host();
    await h.start();
    const d = definitionData(h.url!, h.token, 'vscode-test-key', 1);
    const client = new Client({ name: 'test-client', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(d.url), { requestInit: { headers: d.headers } }));
    const r = await client.callTool({ name: 'set_session', arguments: { name: 'budget', value: 1000 } });
    assert.ok(!r.isError, JSON.stringify(r));
    await client.close();
    assert.deepEqual(await h.store!.variables('owner', 'vscode-test-key'), { budget: 1000 });
    // Acknowledged means written to workspace state, under the bucket's own key.
    const stored = memento.data.get(BUCKET_KEY_PREFIX + bucketIdOf('owner', 'vscode-test-key')) as { vars: unknown };
    assert.deepEqual(stored.vars, { budget: 1000 });
    await h.dispose();
  });

  void test('a taken port is reported and replaced by a free one', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    const { h, warnings } = host({}, { port: taken });
    await h.start();
    assert.notEqual(h.port, taken);
    assert.match(warnings.join('\n'), new RegExp(`port ${taken} is in use`));
    await h.dispose();
    await new Promise<void>((r) => blocker.close(() => r()));
  });

  void test('with port 0 a restart keeps the port, silently taking a free one only if it was taken', async () => {
    const { h, warnings } = host();
    await h.start();
    const first = h.port!;
    await h.restart();
    assert.equal(h.port, first, 'a restart moved the server to another port');
    assert.equal(h.url, `http://127.0.0.1:${first}/mcp`);
    await h.stop();
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(first, '127.0.0.1', () => r()));
    await h.start();
    assert.notEqual(h.port, first);
    assert.deepEqual(warnings, [], 'port 0 was configured: nothing to warn about');
    await h.dispose();
    await new Promise<void>((r) => blocker.close(() => r()));
  });

  void test('restart keeps the token and the stored sessions, and forwards store events of the new store', async () => {
    const { h } = host();
    await h.start();
    const token = h.token;
    await h.store!.set('owner', 'k', 'x', 'y');
    const reasons: string[] = [];
    h.onDidChangeStore((c) => reasons.push(c.reason));
    await h.restart();
    assert.equal(h.token, token);
    assert.deepEqual(await h.store!.variables('owner', 'k'), { x: 'y' });
    await h.store!.set('owner', 'k', 'z', 1);
    assert.ok(reasons.includes('set'));
    await h.dispose();
  });

  void test('expired buckets are gone at start', async () => {
    const { h, memento } = host({}, { ttlSeconds: 60 });
    const old = Date.now() - 120_000;
    memento.data.set(BUCKET_KEY_PREFIX + bucketIdOf('owner', 'old'), { user: 'owner', sessionKey: 'old', vars: { a: 1 }, createdAt: old, lastUsed: old });
    await h.start();
    assert.deepEqual(await h.store!.list(), []);
    await h.store!.flush();
    assert.equal(memento.data.size, 0);
    await h.dispose();
  });

  void test('the gate refuses every tool with its reason', async () => {
    const { h } = host({ gate: () => 'workspace not trusted' });
    await h.start();
    const r = await h.runtime!.calls.execute(h.owner, 'k', 'demo.hello', {});
    assert.equal(r.isError, true);
    assert.match(r.text, /workspace not trusted/);
    assert.equal(h.principalFor('owner')?.user, 'owner');
    assert.equal(h.principalFor('stranger'), undefined);
    await h.dispose();
  });

  void test('stopping the server while a tool runs cancels it and its caller gets the "stopped" answer', async () => {
    const { h } = host();
    h.setCatalog(await loadCatalog([resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'progress', 'tools.yaml')]));
    await h.start();
    const d = definitionData(h.url!, h.token, 'vscode-stop-key', 1);
    const client = new Client({ name: 'test-client', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(d.url), { requestInit: { headers: d.headers } }));
    const pidfile = join(mkdtempSync(join(tmpdir(), 'mcc-host-')), 'pid');
    const running = client.callTool({ name: 'execute', arguments: { key: 'slow.wait_for_pidfile', params: { pidfile } } });
    for (let i = 0; i < 100 && !existsSync(pidfile); i++) await sleep(50);
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    await h.stop();
    assert.equal(h.state, 'stopped');
    const r = (await running) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match((r.content[0] as { text: string }).text, /was stopped with return code -1[\s\S]*the server is shutting down/);
    assert.throws(() => process.kill(pid, 0), 'the tool process is gone');
    await client.close();
    await h.dispose();
  });
});
