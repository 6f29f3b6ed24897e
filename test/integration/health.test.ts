// /healthz and /readyz of a real `mcc serve` over a real redis-server:
// answered without a token and whatever the Host, saying only the status;
// /readyz follows the store as it goes away, hangs and comes back. In
// process: a server with no catalog yet.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server';
import { FIXTURES, connect, okText, startServe, tempDir, type ServeHandle } from './serve-process';
import { startServing } from '../../src/core/serve/serve';
import { MemoryStorage } from '../../src/core/session/memory-storage';
import { OWNER, OWNER_TOKEN } from './in-process';

const TOKEN = 'health-owner-token-0123456789';
const READY = { status: 200, body: '{"status":"ready"}' };
const STORE_DOWN = { status: 503, body: '{"status":"unavailable","reason":"session store unreachable"}' };

interface Got {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A GET with exactly these headers (fetch would not let a test choose Host). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const brief = (g: Got): { status: number; body: string } => ({ status: g.status, body: g.body });

/** Polls /readyz until it answers `want` (the store client reconnects with a backoff of up to 3 s). */
async function readyzBecomes(port: number, want: { status: number; body: string }, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const g = brief(await get(port, '/readyz'));
    if (g.status === want.status && g.body === want.body) return Date.now() - started;
    if (Date.now() - started > withinMs) assert.deepEqual(g, want, `/readyz after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

void describe('health of mcc serve over Redis', { skip: redisUnavailable(), timeout: 60_000 }, () => {
  let redis: RedisServer;
  let h: ServeHandle;

  before(async () => {
    redis = await startRedis();
    const args = ['--tools', join(FIXTURES, 'tools.yaml'), '--store', redis.url, '--state', join(tempDir(), 's.json'), '--user', 'owner'];
    h = await startServe(args, { MCC_TOKEN: TOKEN, BOB_TOKEN_SHA: '0'.repeat(64) });
  });
  after(async () => {
    await h?.stop();
    if (redis.proc.signalCode === null) redis.proc.kill('SIGCONT');
    await redis?.stop();
  });

  void test('no token, any Host: 200 and the status alone', async () => {
    const probes: Array<Record<string, string>> = [{}, { Host: 'lb.internal:80' }, { Host: 'evil.example', Origin: 'http://evil.example' }];
    for (const headers of probes) {
      assert.deepEqual(brief(await get(h.port, '/healthz', headers)), { status: 200, body: '{"status":"ok"}' });
      assert.deepEqual(brief(await get(h.port, '/readyz?verbose=1', headers)), READY);
    }
    const g = await get(h.port, '/readyz');
    assert.equal(g.headers['content-type'], 'application/json');
    assert.equal(g.headers['cache-control'], 'no-store');
    assert.equal(g.headers['www-authenticate'], undefined);
    const head = await get(h.port, '/healthz', {}, 'HEAD');
    assert.deepEqual(brief(head), { status: 200, body: '' });
    assert.equal((await get(h.port, '/readyz', {}, 'POST')).status, 405);
  });

  void test('every other path still wants the token and our Host', async () => {
    assert.equal((await get(h.port, '/mcp')).status, 401);
    assert.equal((await get(h.port, '/mcp', { Authorization: `Bearer ${TOKEN}`, Host: 'evil.example' })).status, 403);
    assert.equal((await get(h.port, '/healthz/../mcp')).status, 404);
    assert.equal((await get(h.port, '/healthzz')).status, 404);
  });

  void test('readyz: 503 while Redis is down or hung, 200 again once the client reconnects; healthz stays 200', async (t) => {
    const port = redis.port;
    await redis.stop();
    const down = await get(h.port, '/readyz');
    assert.deepEqual(brief(down), STORE_DOWN);
    assert.doesNotMatch(down.body, new RegExp(`${port}|redis|127\\.0\\.0\\.1|owner|${TOKEN}`));
    assert.deepEqual(brief(await get(h.port, '/healthz')), { status: 200, body: '{"status":"ok"}' });

    redis = await startRedis(port);
    const back = await readyzBecomes(h.port, READY, 10_000);
    t.diagnostic(`ready ${back} ms after Redis came back`);
    const client = await connect(h);
    assert.equal(await okText(client, 'set_session', { name: 'after', value: 1 }), "Set 'after'.");
    await client.close();

    // A Redis that stops answering (SIGSTOP) keeps its connection: the probe must not hang with it.
    redis.proc.kill('SIGSTOP');
    const started = Date.now();
    assert.deepEqual(brief(await get(h.port, '/readyz')), { status: 503, body: '{"status":"unavailable","reason":"session store did not answer in time"}' });
    assert.ok(Date.now() - started < 5000, 'the probe answered within its time limit');
    redis.proc.kill('SIGCONT');
    await readyzBecomes(h.port, READY, 10_000);
    assert.match(h.stderr(), /not ready: session store unreachable/);
    assert.match(h.stderr(), /ready again/);
  });
});

void describe('readyz in process', () => {
  void test('no catalog yet (the editor starts serving before its first load): 503, then 200 once one is set', async () => {
    const server = await startServing({
      runtime: { storage: new MemoryStorage(), execMode: 'pipe' },
      owner: { token: OWNER_TOKEN, principal: OWNER },
      transport: { kind: 'http', host: '127.0.0.1', port: 0 },
    });
    const port = server.http?.port ?? 0;
    assert.deepEqual(brief(await get(port, '/readyz')), { status: 503, body: '{"status":"unavailable","reason":"catalog not loaded"}' });
    server.runtime.catalog.set({ tools: new Map(), diagnostics: [], files: [] });
    assert.deepEqual(brief(await get(port, '/readyz')), READY);
    await server.stop();
  });

  void test('stateless (instances behind a balancer): answered without a token or X-MCC-Session-Key, /mcp still refuses', async () => {
    const server = await startServing({
      runtime: { storage: new MemoryStorage(), execMode: 'pipe' },
      owner: { token: OWNER_TOKEN, principal: OWNER },
      transport: { kind: 'http', host: '127.0.0.1', port: 0, stateless: true },
      prepare: ({ runtime }) => runtime.catalog.set({ tools: new Map(), diagnostics: [], files: [] }),
    });
    const port = server.http?.port ?? 0;
    try {
      assert.deepEqual(brief(await get(port, '/healthz', { Host: 'balancer.internal' })), { status: 200, body: '{"status":"ok"}' });
      assert.deepEqual(brief(await get(port, '/readyz', { Host: 'balancer.internal' })), READY);
      // A 2025-11-25 request without its bucket key is still refused.
      const noKey = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OWNER_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(noKey.status, 400);
      assert.match(await noKey.text(), /X-MCC-Session-Key is required/);
    } finally {
      await server.stop();
    }
  });
});
