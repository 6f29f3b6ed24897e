// Shutdown ends running tools; --stdio serves one client over stdin/stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, FIXTURES, alive, call, connect, okText, startServe, tempDir, text } from './serve-process';

const TOOLS = join(FIXTURES, 'tools.yaml');

test('SIGTERM during a run kills the tool and exits 0', async () => {
  const dir = tempDir();
  const pidfile = join(dir, 'pid');
  const h = await startServe(['--tools', TOOLS, '--state', join(dir, 's.json')]);
  const c = await connect(h);
  const running = call(c, 'execute', { key: 'test.long_run', params: { pidfile } });
  for (let i = 0; i < 100 && !existsSync(pidfile); i++) await sleep(50);
  const pid = Number(readFileSync(pidfile, 'utf8').trim());
  assert.ok(alive(pid), 'the tool is running');
  const started = Date.now();
  assert.equal(await h.stop('SIGTERM'), 0);
  assert.ok(Date.now() - started < 10000, 'shutdown does not wait for the tool to finish');
  for (let i = 0; i < 40 && alive(pid); i++) await sleep(50);
  assert.equal(alive(pid), false, 'no orphan survives the shutdown');
  // The running call got its answer before the transport closed.
  const r = await running;
  assert.equal(r.isError, true);
  assert.match(text(r), /return code -1/);
  assert.match(text(r), /shutting down|cancel/i);
  await c.close().catch(() => undefined);
});

test('--stdio serves one client over stdin/stdout', async () => {
  const dir = tempDir();
  const connectStdio = async (): Promise<Client> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--tools', TOOLS, '--state', join(dir, 's.json'), '--user', 'stdio-user', '--session-key', 'fixed'],
      stderr: 'pipe',
    });
    const c = new Client({ name: 'stdio-test', version: '1' });
    await c.connect(transport);
    return c;
  };
  const client = await connectStdio();
  const names = (await client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['describe_tools', 'execute', 'get_session', 'search', 'set_session']);
  assert.equal(await okText(client, 'get_session', { name: 'user' }), '"stdio-user"');
  await okText(client, 'set_session', { name: 'kept', value: [1, 2] });
  assert.equal(await okText(client, 'execute', { key: 'public.public_hello' }), 'hello\n');
  await client.close();
  // The same --state and --session-key resume the bucket.
  const c2 = await connectStdio();
  assert.equal(await okText(c2, 'get_session', { name: 'kept' }), '[1,2]');
  await c2.close();
});
