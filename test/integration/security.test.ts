// Transport security: bearer tokens, Host and Origin checks, sessions bound
// to their principal, users and anonymous access.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { call, connect, FIXTURES, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

const BOB_TOKEN = 'bob-token-abcdefghijkl';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function post(url: string, headers: Record<string, string>, body: unknown = INIT): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('HTTP security', () => {
  let h: ServeHandle;
  before(async () => {
    h = await startServe(
      ['--tools', join(FIXTURES, 'tools.yaml'), '--users', join(FIXTURES, 'users.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'owner'],
      { BOB_TOKEN_SHA: createHash('sha256').update(BOB_TOKEN).digest('hex'), MCC_TOKEN: 'owner-token-for-tests-0123456789' },
    );
  });
  after(async () => {
    await h.stop();
  });

  test('the owner token comes from MCC_TOKEN and the server binds loopback', () => {
    assert.equal(h.token, 'owner-token-for-tests-0123456789');
    assert.match(h.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  test('a wrong token is 401 with WWW-Authenticate', async () => {
    const r = await post(h.url, { Authorization: 'Bearer wrong' });
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer /);
    const r2 = await post(h.url, { Authorization: 'Basic b3duZXI6eA==' });
    assert.equal(r2.status, 401);
  });

  test('a foreign Host is 403, loopback names are accepted', async () => {
    const auth = { Authorization: `Bearer ${h.token}` };
    // fetch forbids setting Host; node:http does not.
    const { request } = await import('node:http');
    const status = (host: string): Promise<number> =>
      new Promise((res, rej) => {
        const req = request(
          { host: '127.0.0.1', port: h.port, path: '/mcp', method: 'POST', headers: { ...auth, Host: host, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } },
          (resp) => {
            resp.resume();
            res(resp.statusCode ?? 0);
          },
        );
        req.on('error', rej);
        req.end(JSON.stringify(INIT));
      });
    assert.equal(await status(`evil.example:${h.port}`), 403);
    assert.equal(await status(`127.0.0.1:${h.port + 1}`), 403);
    assert.equal(await status(`localhost:${h.port}`), 200);
    assert.equal(await status(`127.0.0.1:${h.port}`), 200);
  });

  test('a foreign Origin is 403, our own is accepted', async () => {
    const auth = { Authorization: `Bearer ${h.token}` };
    assert.equal((await post(h.url, { ...auth, Origin: 'http://evil.example' })).status, 403);
    assert.equal((await post(h.url, { ...auth, Origin: `http://localhost:${h.port + 1}` })).status, 403);
    assert.equal((await post(h.url, { ...auth, Origin: `http://localhost:${h.port}` })).status, 200);
  });

  test("another user's session id is 404, never served", async () => {
    const r = await post(h.url, { Authorization: `Bearer ${h.token}` });
    assert.equal(r.status, 200);
    const sid = r.headers.get('mcp-session-id');
    assert.ok(sid && sid.length >= 32, 'session ids are long and random');
    await r.body?.cancel();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const asAlice = await post(h.url, { Authorization: 'Bearer alice-token-0123456789', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, list);
    assert.equal(asAlice.status, 404);
    const anon = await post(h.url, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, list);
    assert.equal(anon.status, 404);
  });

  test('users get their identity and only the tools they may run', async () => {
    const alice = await connect(h, { token: 'alice-token-0123456789' });
    assert.equal(await okText(alice, 'get_session', { name: 'user' }), '"alice"');
    assert.equal(await okText(alice, 'get_session', { name: 'email' }), '"alice@example.com"');
    const aliceTools = JSON.parse(await okText(alice, 'get_session', { name: 'tools' })) as string[];
    assert.deepEqual(aliceTools, ['ops.ops_only', 'public.public_hello']);
    assert.equal(await okText(alice, 'execute', { key: 'ops.ops_only' }), 'ops\n');
    const denied = await call(alice, 'execute', { key: 'test.ctx_echo' });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /Unauthorized/);
    assert.doesNotMatch(await okText(alice, 'describe_tools'), /ctx_echo/);
    assert.doesNotMatch(await okText(alice, 'search', { query: 'session store injected' }), /ctx_echo/);

    const bob = await connect(h, { token: BOB_TOKEN });
    assert.deepEqual(JSON.parse(await okText(bob, 'get_session', { name: 'tools' })), ['public.public_hello', 'secret.granted']);
    assert.equal(await okText(bob, 'execute', { key: 'secret.granted' }), 'granted\n');
    await Promise.all([alice.close(), bob.close()]);
  });

  test('the same X-MCC-Session-Key never reaches another user\'s bucket', async () => {
    const owner = await connect(h, { sessionKey: 'shared-key' });
    const alice = await connect(h, { token: 'alice-token-0123456789', sessionKey: 'shared-key' });
    await okText(owner, 'set_session', { name: 'secret', value: 'owner-only' });
    assert.equal(await okText(alice, 'get_session', { name: 'secret' }), 'null');
    await okText(alice, 'set_session', { name: 'secret', value: 'alice' });
    assert.equal(await okText(owner, 'get_session', { name: 'secret' }), '"owner-only"');
    await Promise.all([owner.close(), alice.close()]);
  });

  test('anonymous callers are public-only and isolated by session', async () => {
    const a = await connect(h, { token: null });
    const b = await connect(h, { token: null });
    assert.equal(await okText(a, 'get_session', { name: 'user' }), '"anonymous"');
    assert.deepEqual(JSON.parse(await okText(a, 'get_session', { name: 'groups' })), ['public']);
    assert.deepEqual(JSON.parse(await okText(a, 'get_session', { name: 'tools' })), ['public.public_hello']);
    await okText(a, 'set_session', { name: 'note', value: 'from a' });
    assert.equal(await okText(b, 'get_session', { name: 'note' }), 'null');
    assert.equal((await call(a, 'execute', { key: 'ops.ops_only' })).isError, true);
    await Promise.all([a.close(), b.close()]);
  });

  test('anonymous callers cannot pick a session key (it could be guessed by another)', async () => {
    const r = await post(h.url, { 'X-MCC-Session-Key': 'default' });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(await r.json()), /anonymous callers cannot choose X-MCC-Session-Key/);
  });

  test("an anonymous caller cannot use the owner's session id", async () => {
    const owner = await post(h.url, { Authorization: `Bearer ${h.token}` });
    const sid = owner.headers.get('mcp-session-id')!;
    await owner.body?.cancel();
    const r = await post(h.url, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.equal(r.status, 404);
  });

  test('a malformed session key header is refused', async () => {
    const r = await post(h.url, { Authorization: `Bearer ${h.token}`, 'X-MCC-Session-Key': 'has spaces and/slashes' });
    assert.equal(r.status, 400);
  });
});

describe('owner configuration', () => {
  test("the owner cannot be named 'anonymous' or use a short token", async () => {
    await assert.rejects(startServe(['--tools', join(FIXTURES, 'tools.yaml'), '--user', 'anonymous']), /reserved for token-less callers/);
    await assert.rejects(startServe(['--tools', join(FIXTURES, 'tools.yaml')], { MCC_TOKEN: 'short' }), /too short/);
  });
});

describe('without anonymous access', () => {
  test('a request without a token is 401', async () => {
    const h = await startServe(['--tools', join(FIXTURES, 'tools.yaml'), '--state', join(tempDir(), 's.json')]);
    try {
      const r = await post(h.url, {});
      assert.equal(r.status, 401);
      assert.match(r.headers.get('www-authenticate') ?? '', /Bearer/);
      assert.equal(h.token.length >= 43, true, 'a generated token carries 32 random bytes');
    } finally {
      await h.stop();
    }
  });
});
