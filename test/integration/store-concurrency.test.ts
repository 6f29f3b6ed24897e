// No lost update through the real `mcc serve` on its default SQLite store:
// concurrent calls of function tools that write back their context all count,
// and two --stdio processes on one state directory share their buckets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CLI, FIXTURES, REPO, call, connect, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

describe('concurrent write-backs through mcc serve', () => {
  let h: ServeHandle;
  let clients: Client[];
  before(async () => {
    h = await startServe(['--tools', join(FIXTURES, 'fn-tools.yaml'), '--tools', join(REPO, 'tools.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'dana']);
    clients = await Promise.all(Array.from({ length: 8 }, () => connect(h, { sessionKey: 'shared-counter' })));
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    assert.equal(await h.stop(), 0);
  });

  test('1,000 concurrent calls of a JS tool incrementing context.count end at exactly 1,000', async () => {
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => call(clients[i % clients.length], 'execute', { key: 'fn.bump', params: { by: 1 } })));
    const failed = results.filter((r) => r.isError);
    assert.equal(failed.length, 0, failed.slice(0, 3).map(text).join('\n'));
    // Each call saw the one before it: the answers are 1..1000, each once.
    assert.deepEqual(results.map((r) => Number(text(r))).sort((a, b) => a - b), Array.from({ length: 1000 }, (_, i) => i + 1));
    assert.equal(await okText(clients[0], 'get_session', { name: 'count' }), '1000');
  });

  test('the sample tools remember and advance lose nothing under parallel calls', async () => {
    const notes = Array.from({ length: 50 }, (_, i) => `note-${i}`);
    await Promise.all(notes.map((note, i) => okText(clients[i % clients.length], 'execute', { key: 'demo.remember', params: { note } })));
    await Promise.all(Array.from({ length: 50 }, (_, i) => okText(clients[i % clients.length], 'execute', { key: 'demo.advance', params: { step: 2 } })));
    const stored = JSON.parse(await okText(clients[0], 'get_session', { name: 'notes' })) as string[];
    assert.deepEqual([...stored].sort(), [...notes].sort());
    assert.equal(await okText(clients[0], 'get_session', { name: 'cursor' }), '100');
  });
});

test('two --stdio processes on one state directory read and keep each other\'s buckets', async () => {
  const state = tempDir();
  const stdio = async (sessionKey: string): Promise<Client> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--tools', join(FIXTURES, 'tools.yaml'), '--user', 'win', '--session-key', sessionKey],
      env: { ...(process.env as Record<string, string>), XDG_STATE_HOME: state },
      stderr: 'pipe',
    });
    const c = new McpClient({ name: 'stdio-window', version: '1' });
    await c.connect(transport);
    return c;
  };
  const [a, b] = await Promise.all([stdio('window-a'), stdio('window-b')]);
  const [a2, b2] = await Promise.all([stdio('window-b'), stdio('window-a')]);
  for (let i = 0; i < 20; i++) {
    await Promise.all([okText(a, 'set_session', { name: `a${i}`, value: i }), okText(b, 'set_session', { name: `b${i}`, value: i })]);
    // The other process reads each acknowledged write at once (read-through).
    assert.equal(await okText(b2, 'get_session', { name: `a${i}` }), String(i));
    assert.equal(await okText(a2, 'get_session', { name: `b${i}` }), String(i));
  }
  await Promise.all([a.close(), b.close(), a2.close(), b2.close()]);
  // Both windows gone: a new one finds both buckets whole.
  for (const [key, prefix] of [['window-a', 'a'], ['window-b', 'b']] as const) {
    const c = await stdio(key);
    for (let i = 0; i < 20; i++) assert.equal(await okText(c, 'get_session', { name: `${prefix}${i}` }), String(i));
    await c.close();
  }
});
