// Run it for a team, end to end with the real parts: redis-server, two
// `mcc serve --stateless` processes over it, and nginx (Debian's) in front,
// running README's config (examples/team/nginx.conf; see
// test/support/nginx-server.ts for the few lines a test machine changes).
// Real MCP clients of both revisions talk to nginx; one instance is killed
// with kill -9 in the middle.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server';
import { nginxUnavailable, startNginx, type LoggedRequest, type NginxServer } from '../support/nginx-server';
import { callTool, connectModern, textOf } from '../support/modern-client';
import { FIXTURES, connect, okText, startServe, tempDir, type ServeHandle } from './serve-process';

const TOKEN = 'team-token-0123456789abcdef';
const ENV = { MCC_TOKEN: TOKEN, BOB_TOKEN_SHA: '0'.repeat(64) };
// The name clients reach nginx by; nginx forwards it in Host ($host, no port).
const PUBLIC_NAME = '127.0.0.1';
// max_fails=1 fail_timeout=10s in examples/team/nginx.conf.
const FAIL_TIMEOUT_MS = 10_000;

/** The tool calls a step's clients sent, as nginx logged them, once all `count` are there. */
async function toolCalls(nginx: NginxServer, step: string, count: number): Promise<LoggedRequest[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    // nginx writes a request's line when it has finished it, which may be just after the client has its answer.
    const calls = posts(nginx, step).filter((r) => r.body?.method === 'tools/call');
    if (calls.length >= count) return calls;
    if (Date.now() > deadline) assert.fail(`nginx logged ${calls.length} of the ${count} tool calls of step ${step}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every POST of a step (the 2025-11-25 client's GET for a stream is refused by --stateless, 405). */
function posts(nginx: NginxServer, step: string): LoggedRequest[] {
  return nginx.accessLog().filter((r) => r.step === step && r.method === 'POST' && r.uri === '/mcp');
}

const tag = (step: string): Record<string, string> => ({ 'x-test-step': step });

/** Which instance logged a line matching `re` (its audit trail is written as it answers). */
async function whoLogged(instances: ServeHandle[], re: RegExp): Promise<number> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = instances.findIndex((h) => re.test(h.stderr()));
    if (found >= 0) return found;
    if (Date.now() > deadline) assert.fail(`no instance logged ${String(re)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const req = request(url, { method: 'POST', headers: { host, authorization: `Bearer ${TOKEN}`, 'x-mcc-session-key': 'k', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the team setup: Redis, two stateless instances, nginx with README\'s config', { skip: redisUnavailable() ?? nginxUnavailable() }, () => {
  let redis: RedisServer | undefined;
  const instances: ServeHandle[] = [];
  let nginx: NginxServer;
  const clients: Array<Client | ModernClient> = [];
  let handle = '';
  const values = new Map<string, unknown>();

  before(async () => {
    redis = await startRedis();
    const args = ['--stateless', '--store', redis.url, '--store-prefix', 'team:', '--public-host', PUBLIC_NAME, '--tools', join(FIXTURES, 'tools.yaml'), '--users', join(FIXTURES, 'users.yaml'), '--user', 'owner', '--state', join(tempDir(), 'none.json')];
    for (const started of await Promise.allSettled([startServe(args, ENV), startServe(args, ENV)])) {
      if (started.status === 'fulfilled') instances.push(started.value);
      else throw started.reason;
    }
    nginx = await startNginx({ instances: [instances[0].port, instances[1].port], publicName: PUBLIC_NAME });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await nginx?.stop();
    for (const i of instances) await i.stop();
    await redis?.stop();
  });

  test('a 2025-11-25 client sets through nginx; both instances answered, and each reads every value', async () => {
    const legacy = await connect({ url: nginx.url, token: TOKEN }, { sessionKey: 'laptop', headers: tag('spread') });
    clients.push(legacy);
    for (let i = 0; i < 6; i++) {
      values.set(`k${i}`, { i, even: i % 2 === 0 });
      await okText(legacy, 'set_session', { name: `k${i}`, value: values.get(`k${i}`) });
      assert.equal(await okText(legacy, 'get_session', { name: `k${i}` }), JSON.stringify(values.get(`k${i}`)));
    }
    const calls = await toolCalls(nginx, 'spread', 12);
    assert.ok(calls.every((l) => l.status === 200), JSON.stringify(calls));
    const ports = new Set(calls.flatMap((l) => l.upstreams.map((u) => Number(u.split(':')[1]))));
    assert.deepEqual([...ports].sort(), instances.map((i) => i.port).sort(), 'nginx spread the calls over both instances');
    // The audit trail of each instance says which one answered each call.
    const setBy = await Promise.all([...values.keys()].map((k) => whoLogged(instances, new RegExp(`call owner bucket=laptop set_session \\{"name":"${k}"`))));
    const readBy = await Promise.all([...values.keys()].map((k) => whoLogged(instances, new RegExp(`call owner bucket=laptop get_session \\{"name":"${k}"\\} -> 0 `))));
    assert.ok(setBy.some((s, i) => s !== readBy[i]), `some value was set through one instance and read through the other: ${JSON.stringify({ setBy, readBy })}`);
    for (const h of instances) {
      const direct = await connect(h, { sessionKey: 'laptop', token: TOKEN });
      clients.push(direct);
      for (const [name, value] of values) assert.equal(await okText(direct, 'get_session', { name }), JSON.stringify(value), `${name} on port ${h.port}`);
    }
  });

  test('a 2026-07-28 client keeps its variables through nginx with a session handle, answered by both instances', async () => {
    const modern = await connectModern(nginx.url, { token: TOKEN, headers: tag('modern') });
    clients.push(modern);
    const set = await callTool(modern, 'set_session', { name: 'zone', value: 'eu-1' });
    handle = (set.structuredContent as { session: string }).session;
    for (let i = 0; i < 4; i++) assert.equal(textOf(await callTool(modern, 'get_session', { name: 'zone', session: handle })), '"eu-1"', `round ${i}`);
    const reads = (await toolCalls(nginx, 'modern', 5)).filter((r) => r.body?.params?.name === 'get_session');
    assert.equal(reads.length, 4);
    assert.equal(new Set(reads.flatMap((l) => l.upstreams)).size, 2, 'both instances answered the reads');
  });

  test('nginx forwards the public name as Host, which the instances accept; another name is refused by them', async () => {
    const ok = await getWithHost(nginx.url, `${PUBLIC_NAME}:${nginx.port}`);
    assert.equal(ok.status, 200, ok.body);
    const evil = await getWithHost(nginx.url, 'evil.example.com');
    assert.equal(evil.status, 403);
    assert.match(evil.body, /Host 'evil\.example\.com' is not allowed/);
  });

  test('kill -9 of one instance: its /readyz fails, nginx routes around it, nothing set before is lost and new sets work', async () => {
    const [dead, live] = instances;
    const killedAt = Date.now();
    assert.equal(await dead.stop('SIGKILL'), null);
    await assert.rejects(fetch(`http://127.0.0.1:${dead.port}/readyz`), (e: Error & { cause?: { code?: string } }) => e.cause?.code === 'ECONNREFUSED');
    const ready = await fetch(`http://127.0.0.1:${live.port}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });

    // New clients, so that connecting goes through nginx after the kill too.
    const legacy = await connect({ url: nginx.url, token: TOKEN }, { sessionKey: 'laptop', headers: tag('after-kill') });
    const modern = await connectModern(nginx.url, { token: TOKEN, headers: tag('after-kill') });
    clients.push(legacy, modern);
    for (const [name, value] of values) assert.equal(await okText(legacy, 'get_session', { name }), JSON.stringify(value), `${name} lost`);
    assert.equal(textOf(await callTool(modern, 'get_session', { name: 'zone', session: handle })), '"eu-1"');
    for (let i = 0; i < 6; i++) {
      await okText(legacy, 'set_session', { name: `after${i}`, value: i });
      assert.equal(await okText(legacy, 'get_session', { name: `after${i}` }), String(i));
    }
    const elapsed = Date.now() - killedAt;

    await toolCalls(nginx, 'after-kill', values.size + 1 + 12);
    const lines = posts(nginx, 'after-kill');
    assert.ok(lines.every((l) => l.status === 200 || (l.status === 202 && l.body?.method?.startsWith('notifications/'))), `every request answered: ${JSON.stringify(lines)}`);
    const deadAddr = `127.0.0.1:${dead.port}`;
    const tried = lines.filter((l) => l.upstreams.includes(deadAddr));
    assert.ok(tried.length >= 1, 'round robin sent at least one request to the dead instance');
    for (const l of tried) assert.deepEqual(l.upstreams, [deadAddr, `127.0.0.1:${live.port}`], 'and nginx passed it on to the live one');
    // Passive health: the dead one is left out for fail_timeout after a failure, not tried every other request.
    assert.ok(tried.length <= 1 + Math.floor(elapsed / FAIL_TIMEOUT_MS), `tried the dead instance ${tried.length} times in ${elapsed} ms`);
    assert.match(nginx.errorLog(), new RegExp(`connect\\(\\) failed \\(111: Connection refused\\) while connecting to upstream.*upstream: "http://${deadAddr.replace(/\./g, '\\.')}/mcp"`));
    assert.match(nginx.errorLog(), /upstream server temporarily disabled while connecting to upstream/);
  });
});
