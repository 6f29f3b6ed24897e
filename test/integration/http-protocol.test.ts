// The Streamable HTTP endpoint by the book, with raw requests: JSON-RPC
// error codes and HTTP statuses, bodies refused before they are read whole,
// SSE priming and resumption, and MCP sessions that end (DELETE, idle
// limit, caps).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OWNER, errorOf, rawPost, rawRequest, rawSession, serveInProcess, type InProcess } from './in-process';

const ALICE_TOKEN = 'alice-token-0123456789';
const users = {
  users: [{ principal: { user: 'alice', email: '', groups: ['slow'], grants: [] }, token: ALICE_TOKEN }],
  anonymous: true,
};
const PING = { jsonrpc: '2.0', id: 7, method: 'ping' };

/** Sends `chunks` bodies of `size` bytes, one every 5 ms, until the server answers. */
function streamUntilAnswered(url: string, token: string, size: number, chunks: number): Promise<{ status: number; body: string; sentBytes: number }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } },
      (res) => {
        answered = true;
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBytes: sent }));
      },
    );
    req.on('error', (e) => (answered ? undefined : reject(e)));
    const pump = (): void => {
      if (answered || sent >= size * chunks) return void req.end();
      req.write(Buffer.alloc(size, 0x20));
      sent += size;
      setTimeout(pump, 5);
    };
    req.write('[');
    pump();
  });
}

void describe('errors by the book', () => {
  let s: InProcess;
  let auth: Record<string, string>;
  before(async () => {
    s = await serveInProcess({ maxBodyBytes: 64 * 1024 });
    auth = { Authorization: `Bearer ${s.token}` };
  });
  after(async () => {
    await s.stop();
  });

  void test('a body that is not JSON is a parse error (-32700, 400)', async () => {
    const a = await rawPost(s.url, auth, '{"jsonrpc": "2.0", "method": ');
    assert.equal(a.status, 400);
    assert.equal(errorOf(a).code, -32700);
    assert.equal((a.messages[0] as { id: unknown }).id, null);
    assert.equal(errorOf(await rawPost(s.url, auth, '')).code, -32700);
  });

  void test('JSON that is no JSON-RPC message is an invalid request (-32600, 400)', async () => {
    for (const body of ['{"hello": 1}', '[]', '42', '{"jsonrpc": "1.0", "id": 1, "method": "ping"}']) {
      const a = await rawPost(s.url, auth, body);
      assert.equal(a.status, 400, body);
      assert.equal(errorOf(a).code, -32600, body);
    }
  });

  void test('media type, method and Accept are checked (415, 405, 406)', async () => {
    const plain = await fetch(s.url, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(plain.status, 415);
    const put = await rawRequest(s.url, 'PUT', auth);
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
    const { headers } = await rawSession(s.url, s.token);
    const noAccept = await fetch(s.url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(PING) });
    assert.equal(noAccept.status, 406);
  });

  void test('requests without a session are 400; an unknown session is 404 (-32001)', async () => {
    assert.equal((await rawPost(s.url, auth, PING)).status, 400);
    assert.equal((await rawRequest(s.url, 'GET', { ...auth, Accept: 'text/event-stream' })).status, 400);
    assert.equal((await rawRequest(s.url, 'DELETE', auth)).status, 400);
    const unknown = await rawPost(s.url, { ...auth, 'Mcp-Session-Id': 'no-such-session' }, PING);
    assert.equal(unknown.status, 404);
    assert.equal(errorOf(unknown).code, -32001);
  });

  void test('an unsupported protocol version header is 400', async () => {
    const { headers } = await rawSession(s.url, s.token);
    const a = await rawPost(s.url, { ...headers, 'Mcp-Protocol-Version': '1999-01-01' }, PING);
    assert.equal(a.status, 400);
  });

  void test('DELETE ends a session: 200, then 404', async () => {
    const { headers } = await rawSession(s.url, s.token);
    assert.equal((await rawPost(s.url, headers, PING)).status, 200);
    assert.equal((await rawRequest(s.url, 'DELETE', headers)).status, 200);
    assert.equal((await rawPost(s.url, headers, PING)).status, 404);
  });

  void test('a declared Content-Length over the limit is 413 with a JSON-RPC error, nothing read', async () => {
    const u = new URL(s.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': String(10 * 1024 * 1024) } },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"jsonrpc":'); // the body never comes: the answer must not wait for it
    });
    assert.equal(answer.status, 413);
    const body = JSON.parse(answer.body) as { jsonrpc: string; error: { code: number; message: string }; id: null };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.match(body.error.message, /over 65536 bytes/);
  });

  void test('a streamed body is refused once it passes the limit, before it ends', async () => {
    const a = await streamUntilAnswered(s.url, s.token, 16 * 1024, 640); // would be 10 MiB
    assert.equal(a.status, 413);
    assert.equal((JSON.parse(a.body) as { error: { code: number } }).error.code, -32000);
    assert.ok(a.sentBytes < 2 * 1024 * 1024, `the client had sent ${a.sentBytes} bytes when the answer came`);
  });

  void test('a POST stream opens with a priming event (id, retry); a broken stream resumes with Last-Event-ID', async () => {
    const { headers } = await rawSession(s.url, s.token);
    const abort = new AbortController();
    const r = await fetch(s.url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'execute', arguments: { key: 'slow.ticks', params: { count: 3, every: 0.4 } } } }),
      signal: abort.signal,
    });
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    let first = '';
    while (!first.includes('\n\n')) first += new TextDecoder().decode((await reader.read()).value);
    const priming = first.slice(0, first.indexOf('\n\n'));
    assert.match(priming, /^id: \S+\nretry: 2000\ndata: $/);
    const lastEventId = /^id: (\S+)/.exec(priming)?.[1] as string;
    abort.abort(); // the connection breaks mid-call
    await sleep(Number(/retry: (\d+)/.exec(priming)?.[1])); // as a client does before it resumes

    const resumed = await fetch(s.url, { headers: { ...headers, Accept: 'text/event-stream', 'Last-Event-ID': lastEventId } });
    assert.equal(resumed.status, 200);
    const text = await resumed.text();
    const result = text
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)) as { id?: number; result?: CallToolResult })
      .find((m) => m.id === 9);
    assert.match(JSON.stringify(result?.result?.content), /tick 3 of 3/);
  });
});

void describe('MCP sessions that end', () => {
  void test('an idle session is closed after the limit (404 then); its bucket stays', async () => {
    const s = await serveInProcess({ sessions: { idleMs: 1500 } });
    try {
      const connect = async (): Promise<{ c: Client; t: StreamableHTTPClientTransport }> => {
        const c = new Client({ name: 'idle-test', version: '1' });
        const t = new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}`, 'X-MCC-Session-Key': 'kept' } } });
        await c.connect(t);
        return { c, t };
      };
      const first = await connect();
      await first.c.callTool({ name: 'set_session', arguments: { name: 'budget', value: 7 } });
      const sid = first.t.sessionId as string;
      await first.c.close(); // as the SDK's client does: no DELETE
      const { headers } = await rawSession(s.url, s.token);
      for (let i = 0; i < 80 && (s.server.http?.sessionCount() ?? 0) > 0; i++) await sleep(100);
      assert.equal(s.server.http?.sessionCount(), 0);
      assert.equal((await rawPost(s.url, { ...headers }, PING)).status, 404);
      assert.equal((await rawPost(s.url, { ...headers, 'Mcp-Session-Id': sid }, PING)).status, 404);
      const again = await connect();
      const r = (await again.c.callTool({ name: 'get_session', arguments: { name: 'budget' } })) as CallToolResult;
      assert.equal((r.content[0] as { text: string }).text, '7', 'the bucket outlives the MCP session');
      await again.c.close();
    } finally {
      await s.stop();
    }
  });

  void test('a session with a request in flight (an open GET stream) is not idle', async () => {
    const s = await serveInProcess({ sessions: { idleMs: 1000 } });
    try {
      const { headers } = await rawSession(s.url, s.token);
      const abort = new AbortController();
      const stream = await fetch(s.url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: abort.signal });
      assert.equal(stream.status, 200);
      await sleep(2500);
      assert.equal((await rawPost(s.url, headers, PING)).status, 200);
      abort.abort();
      await sleep(2500);
      assert.equal((await rawPost(s.url, headers, PING)).status, 404);
    } finally {
      await s.stop();
    }
  });

  void test('a full cap closes the least recently used session not running a tool; when all are, 429', async () => {
    const s = await serveInProcess({ sessions: { perPrincipal: 3 } });
    try {
      const a = await rawSession(s.url, s.token);
      const b = await rawSession(s.url, s.token);
      const c = await rawSession(s.url, s.token);
      await rawPost(s.url, a.headers, PING); // a is now more recent than b
      const d = await rawSession(s.url, s.token);
      assert.equal((await rawPost(s.url, b.headers, PING)).status, 404, 'b was the least recently used');
      for (const x of [a, c, d]) assert.equal((await rawPost(s.url, x.headers, PING)).status, 200);

      // A client listening on a GET stream still makes room: b2 evicts a.
      const listening = new AbortController();
      assert.equal((await fetch(s.url, { headers: { ...a.headers, Accept: 'text/event-stream' }, signal: listening.signal })).status, 200);
      await rawPost(s.url, c.headers, PING);
      await rawPost(s.url, d.headers, PING);
      const b2 = await rawSession(s.url, s.token);
      assert.equal((await rawPost(s.url, a.headers, PING)).status, 404);
      listening.abort();

      // With a tool running in each, none can go: 429.
      const calls = [c, d, b2].map((x) =>
        rawPost(s.url, x.headers, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'execute', arguments: { key: 'slow.silent', params: { seconds: 1.5 } } } }),
      );
      await sleep(500);
      const refused = await rawPost(s.url, { Authorization: `Bearer ${s.token}` }, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(errorOf(refused).message, /too many open MCP sessions/);
      for (const r of await Promise.all(calls)) assert.match(r.text, /bye/);
    } finally {
      await s.stop();
    }
  });

  void test('anonymous callers share one small cap; the overall cap spans principals', async () => {
    const s = await serveInProcess({ users, sessions: { anonymous: 2, perPrincipal: 10, total: 4 } });
    try {
      const anon1 = await rawSession(s.url, undefined);
      const anon2 = await rawSession(s.url, undefined);
      const anon3 = await rawSession(s.url, undefined);
      assert.equal((await rawPost(s.url, anon1.headers, PING)).status, 404, 'the oldest anonymous session made room');
      assert.equal((await rawPost(s.url, anon2.headers, PING)).status, 200);
      const owner = await rawSession(s.url, s.token);
      const alice = await rawSession(s.url, ALICE_TOKEN);
      assert.equal(s.server.http?.sessionCount(), 4);
      // Full overall: the least recently used idle session of anyone goes.
      await rawPost(s.url, anon2.headers, PING);
      const alice2 = await rawSession(s.url, ALICE_TOKEN);
      assert.equal((await rawPost(s.url, anon3.headers, PING)).status, 404);
      for (const x of [anon2, owner, alice, alice2]) assert.equal((await rawPost(s.url, x.headers, PING)).status, 200);
      assert.equal(s.server.http?.sessionCount(), 4);
    } finally {
      await s.stop();
    }
  });

  void test('a session is bound to its principal: another user\'s id is 404', async () => {
    const s = await serveInProcess({ users });
    try {
      const owner = await rawSession(s.url, s.token);
      const asAlice = await rawPost(s.url, { Authorization: `Bearer ${ALICE_TOKEN}`, 'Mcp-Session-Id': owner.sid, 'Mcp-Protocol-Version': '2025-11-25' }, PING);
      assert.equal(asAlice.status, 404);
      assert.equal(OWNER.user, 'owner');
    } finally {
      await s.stop();
    }
  });
});
