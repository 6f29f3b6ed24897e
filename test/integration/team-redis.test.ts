// Run it for a team: a real redis-server, two `mcc serve --stateless --store
// redis://...` instances and a small round-robin proxy in front of them, the
// way a load balancer would spread one client's requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server';
import { callTool, connectModern, rawModern, textOf } from '../support/modern-client';
import { running, settled, startLegacyTask, TASK_CATALOG } from '../support/task-helpers';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { FIXTURES, call, connect, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

const TOKEN = 'team-token-0123456789abcdef';
const ENV = { MCC_TOKEN: TOKEN, BOB_TOKEN_SHA: '0'.repeat(64) };
const ALICE = 'alice-token-0123456789';

interface Proxy {
  url: string;
  /** Which instance (index) served each request, with the tool it called. */
  log: Array<{ target: number; tool?: string }>;
  targets: Array<{ port: number; up: boolean }>;
  close(): Promise<void>;
}

/** Round robin over the instances that are up; a request is never retried elsewhere. */
async function roundRobin(ports: number[]): Promise<Proxy> {
  const targets = ports.map((port) => ({ port, up: true }));
  const log: Proxy['log'] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const live = targets.map((t, i) => ({ ...t, i })).filter((t) => t.up);
      const t = live[next++ % live.length];
      const body = Buffer.concat(chunks);
      let tool: string | undefined;
      try {
        tool = (JSON.parse(body.toString()) as { params?: { name?: string } }).params?.name;
      } catch {
        // GET or not JSON: no tool
      }
      log.push({ target: t.i, ...(tool ? { tool } : {}) });
      const headers = { ...req.headers, host: `127.0.0.1:${t.port}` };
      const up = request({ host: '127.0.0.1', port: t.port, method: req.method, path: req.url, headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    log,
    targets,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('two stateless instances over one Redis, behind a round-robin proxy', { skip: redisUnavailable() }, () => {
  let redis: RedisServer;
  let instances: ServeHandle[];
  let proxy: Proxy;
  let client: Client;
  before(async () => {
    redis = await startRedis();
    const jobs = join(tempDir(), 'jobs.yaml');
    writeFileSync(jobs, TASK_CATALOG);
    const args = ['--stateless', '--store', redis.url, '--store-prefix', 'team:', '--tools', join(FIXTURES, 'tools.yaml'), '--tools', jobs, '--tools', join(FIXTURES, 'fn-tools.yaml'), '--users', join(FIXTURES, 'users.yaml'), '--user', 'owner', '--state', join(tempDir(), 'none.json')];
    instances = await Promise.all([startServe(args, ENV), startServe(args, ENV)]);
    proxy = await roundRobin(instances.map((i) => i.port));
    client = await connect({ url: proxy.url, token: TOKEN }, { sessionKey: 'laptop' });
  });
  after(async () => {
    await client.close().catch(() => undefined);
    await proxy.close();
    for (const i of instances) await i.stop();
    await redis.stop();
  });

  test('set_session then get_session 200 times, alternating instances, always reads what was written', async () => {
    const from = proxy.log.length;
    for (let i = 0; i < 200; i++) {
      await okText(client, 'set_session', { name: 'step', value: { i, even: i % 2 === 0 } });
      assert.equal(await okText(client, 'get_session', { name: 'step' }), JSON.stringify({ i, even: i % 2 === 0 }), `round ${i}`);
    }
    const calls = proxy.log.slice(from);
    const sets = calls.filter((c) => c.tool === 'set_session');
    const gets = calls.filter((c) => c.tool === 'get_session');
    assert.equal(sets.length, 200);
    const crossed = sets.filter((s, i) => gets[i] && gets[i].target !== s.target).length;
    assert.equal(crossed, 200, 'every get went to the other instance than its set');
  });

  test('an exec tool sees MCC_CTX_<NAME> whichever instance runs it', async () => {
    await okText(client, 'set_session', { name: 'target', value: '10.0.0.5' });
    await okText(client, 'set_session', { name: 'budget', value: 1000 });
    const from = proxy.log.length;
    for (let i = 0; i < 4; i++) {
      const out = await okText(client, 'execute', { key: 'test.ctx_echo' });
      assert.match(out, /user=owner\ntarget=10\.0\.0\.5\nbudget=1000\n/);
    }
    const ran = new Set(proxy.log.slice(from).filter((c) => c.tool === 'execute').map((c) => c.target));
    assert.deepEqual([...ran].sort(), [0, 1]);
  });

  test('the bucket is the caller\'s own: another user with the same key sees nothing', async () => {
    const alice = await connect({ url: proxy.url, token: ALICE }, { sessionKey: 'laptop' });
    assert.equal(await okText(alice, 'get_session', { name: 'target' }), 'null');
    assert.equal(await okText(alice, 'get_session', { name: 'user' }), '"alice"');
    await alice.close();
  });

  test('stateless mode refuses requests without a key, anonymous callers, and GET, saying why', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(instances[0].url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const noKey = await post({ authorization: `Bearer ${TOKEN}` });
    assert.equal(noKey.status, 400);
    assert.match(await noKey.text(), /X-MCC-Session-Key is required: this server is stateless/);
    const anonymous = await post({ 'x-mcc-session-key': 'guess' });
    assert.equal(anonymous.status, 401);
    assert.match(await anonymous.text(), /stateless.*serves only callers with a token/);
    const get = await fetch(instances[0].url, { headers: { authorization: `Bearer ${TOKEN}`, 'x-mcc-session-key': 'k' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  test('a 2026-07-28 client keeps its variables with a session handle across both instances, with no sticky routing', async () => {
    const modern = await connectModern(proxy.url, { token: TOKEN });
    const alice = await connectModern(proxy.url, { token: ALICE });
    try {
      const set = await callTool(modern, 'set_session', { name: 'zone', value: 'eu-1' });
      const handle = (set.structuredContent as { session: string }).session;
      const from = proxy.log.length;
      for (let i = 0; i < 4; i++) {
        assert.equal(textOf(await callTool(modern, 'get_session', { name: 'zone', session: handle })), '"eu-1"', `round ${i}`);
      }
      for (let i = 0; i < 4; i++) {
        assert.match(textOf(await callTool(modern, 'execute', { key: 'test.ctx_echo', session: handle })), /user=owner\n/);
      }
      for (const tool of ['get_session', 'execute']) {
        const served = new Set(proxy.log.slice(from).filter((c) => c.tool === tool).map((c) => c.target));
        assert.deepEqual([...served].sort(), [0, 1], `both instances answered ${tool}`);
      }
      // Search, write-back and the input-required round trip, each request to whichever instance is next.
      assert.match(textOf(await callTool(modern, 'search', { query: 'injected session store' })), /test\.ctx_echo/);
      await callTool(modern, 'execute', { key: 'fn.bump', params: { by: 3 }, session: handle });
      await callTool(modern, 'execute', { key: 'fn.bump', params: { by: 4 }, session: handle });
      assert.equal(textOf(await callTool(modern, 'get_session', { name: 'count', session: handle })), '7', 'both write-backs landed');
      const asking = await connectModern(proxy.url, { token: TOKEN, answer: () => ({ action: 'accept', content: { word: 'asked' } }) });
      const before = proxy.log.length;
      assert.equal(textOf(await callTool(asking, 'execute', { key: 'test.echo_args' })), 'asked:2:s3cret');
      const rounds = proxy.log.slice(before).filter((c) => c.tool === 'execute').map((c) => c.target);
      assert.equal(rounds.length, 2, 'asked, then called again with the answer');
      assert.notEqual(rounds[0], rounds[1], 'the answer went to the other instance');
      await asking.close();
      for (let i = 0; i < 2; i++) {
        const stolen = await callTool(alice, 'get_session', { name: 'zone', session: handle });
        assert.equal(stolen.isError, true);
        assert.match(textOf(stolen), /Unknown session handle/);
      }
    } finally {
      await modern.close();
      await alice.close();
    }
  });

  test('a task started through one instance is polled, cancelled and its answer fetched through the other; another user reaches nothing', async () => {
    const from = proxy.log.length;
    const created = await rawModern(proxy.url, TOKEN, 'tools/call', { name: 'execute', arguments: { key: 'job.slow' } }, { tasks: true });
    assert.equal(created.result?.resultType, 'task');
    const { task } = await settled(proxy.url, TOKEN, created.result?.taskId as string);
    assert.equal(task.status, 'completed');
    assert.deepEqual((task.result as { content: unknown }).content, [{ type: 'text', text: 'first\nlast\n' }]);
    assert.deepEqual([...new Set(proxy.log.slice(from).map((c) => c.target))].sort(), [0, 1], 'both instances answered');

    const before = proxy.log.length;
    const endless = await rawModern(proxy.url, TOKEN, 'tools/call', { name: 'execute', arguments: { key: 'job.forever' } }, { tasks: true });
    const taskId = endless.result?.taskId as string;
    const other = instances[1 - proxy.log[before].target];
    const stolen = await rawModern(other.url, ALICE, 'tasks/cancel', { taskId }, { tasks: true });
    assert.equal(stolen.error?.code, -32602, "another user's cancel reaches nothing");
    const cancel = await rawModern(other.url, TOKEN, 'tasks/cancel', { taskId }, { tasks: true });
    assert.equal(cancel.result?.resultType, 'complete');
    const ended = await settled(other.url, TOKEN, taskId);
    assert.equal(ended.task.status, 'cancelled', 'the instance running it saw the cancel made through the other');
    const deadline = Date.now() + 5000;
    while (running('sleep 47.31') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(running('sleep 47.31'), false, 'its process is gone');
  });

  test('a 2025-11-25 task through the proxy: started on one instance, polled and its result fetched through the other', async () => {
    const from = proxy.log.length;
    const taskId = await startLegacyTask(client, 'execute', { key: 'job.slow' });
    const started = proxy.log[from].target;
    const other = await connect({ url: instances[1 - started].url, token: TOKEN }, { sessionKey: 'laptop' });
    try {
      assert.ok(['working', 'completed'].includes((await other.experimental.tasks.getTask(taskId)).status), 'the other instance finds the task');
      const result = await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.deepEqual(result.content, [{ type: 'text', text: 'first\nlast\n' }]);
      const alice = await connect({ url: instances[1 - started].url, token: ALICE }, { sessionKey: 'laptop' });
      await assert.rejects(alice.experimental.tasks.getTask(taskId), (e: { code?: number }) => e.code === -32602);
      await alice.close();
    } finally {
      await other.close();
    }
  });

  test('killing one instance with kill -9 loses nothing acknowledged', async () => {
    const acknowledged: string[] = [];
    const writes = Array.from({ length: 120 }, async (_, i) => {
      const r = await call(client, 'set_session', { name: `k${i}`, value: i }).catch(() => undefined);
      if (r && !r.isError) acknowledged.push(`k${i}`);
      else if (r) assert.fail(`set_session failed: ${text(r)}`);
    });
    await new Promise((r) => setTimeout(r, 20));
    instances[0].proc.kill('SIGKILL');
    proxy.targets[0].up = false;
    await Promise.all(writes);
    assert.ok(acknowledged.length > 0);
    const survivor = await connect({ url: proxy.url, token: TOKEN }, { sessionKey: 'laptop' });
    for (const name of acknowledged) assert.equal(await okText(survivor, 'get_session', { name }), name.slice(1), `acknowledged ${name} lost`);
    assert.equal(await okText(survivor, 'get_session', { name: 'target' }), '"10.0.0.5"');
    await survivor.close();
  });
});
