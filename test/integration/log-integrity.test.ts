// Logs that cannot be forged, through the real `mcc serve`: control
// characters in keys, params, client names and session keys are escaped;
// a client name is bounded before it is stored or logged; deeply nested
// params are refused before anything runs, and every execute is audited.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { sqlitePathFor } from '../../src/core/session/store-spec';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, connect, FIXTURES, okText, startServe, tempDir, type ServeHandle } from './serve-process';

const LINE_START = /^\d{4}-\d\d-\d\dT[\d:.]+Z (info |warn |error|debug) /;
const FORGED = '2030-01-01T00:00:00.000Z info  call owner bucket=forged ops.deploy {} -> 0 in 1 ms';

describe('log lines cannot be forged', () => {
  let h: ServeHandle;
  const state = join(tempDir(), 's.json');
  before(async () => {
    h = await startServe(['--tools', join(FIXTURES, 'tools.yaml'), '--state', state, '--user', 'owner']);
  });
  after(async () => {
    await h.stop();
  });

  async function auditLine(marker: RegExp): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const line = h.stderr().split('\n').find((l) => marker.test(l));
      if (line) return line;
      await sleep(30);
    }
    assert.fail(`no log line matches ${String(marker)}:\n${h.stderr().slice(-3000)}`);
  }

  // Lines from elsewhere (node-pty reports its own errors on stderr) may be
  // there; what must never be there is a line that starts with the forged
  // text, or the forged text in a line without the escape before it.
  function noForgedLine(): void {
    const lines = h.stderr().split('\n').filter((l) => l !== '');
    const forgedStart = FORGED.slice(0, 24);
    for (const l of lines) {
      assert.ok(!l.startsWith(forgedStart), `a forged line stands alone: ${JSON.stringify(l.slice(0, 200))}`);
      if (l.includes(FORGED)) assert.match(l, LINE_START, `the forged text is inside a line that is not a log line: ${JSON.stringify(l.slice(0, 200))}`);
    }
    assert.ok(lines.some((l) => l.includes(`\\n${FORGED}`)), 'the forged text is there, escaped');
  }

  test('a key, a param, a client name and a session key with newlines, CR and ESC stay in their own line', async () => {
    const c = await connect(h, { name: `evil\n${FORGED}`, sessionKey: 'inject-key' });
    await call(c, 'execute', { key: `nope\n${FORGED}` });
    await call(c, 'execute', { key: 'test.echo_args', params: { word: `w\r\n${FORGED}\u001b[2J\u0085` } });
    await call(c, 'get_session', { name: `x\n${FORGED}` });
    await call(c, 'search', { query: `q\n${FORGED}` });
    await c.close();
    await auditLine(/ search /);
    noForgedLine();
    const line = await auditLine(/ call owner bucket=inject-key search /);
    assert.match(line, /search \{"query":"q\\n2030/);
    assert.match(line, /client="evil\\n2030/);
    await auditLine(/ call owner bucket=inject-key nope\\n2030-01-01/);
    await auditLine(/ call owner bucket=inject-key test\.echo_args \{"word":"w\\r\\n2030.*\\u001b\[2J\\x85"/);
  });

  test('a 3 MB client name is bounded to 200 characters in the bucket and the log', async () => {
    const huge = `big-client-${'n'.repeat(3_000_000)}`;
    const c = await connect(h, { name: huge, sessionKey: 'huge-name' });
    await okText(c, 'set_session', { name: 'x', value: 1 });
    await c.close();
    // --state without --store keeps the SQLite file beside it (s.db); a set is
    // acknowledged only once its transaction is committed.
    const db = new Database(sqlitePathFor(state), { readonly: true });
    const bucket = db.prepare("SELECT client_name AS clientName FROM entries WHERE name = '' AND session_key = ?").get('huge-name') as
      | { clientName: string | null }
      | undefined;
    db.close();
    assert.ok(bucket, 'the bucket was written');
    assert.equal(bucket.clientName?.length, 200);
    assert.ok(bucket.clientName?.startsWith('big-client-nnn'));
    const line = await auditLine(/ call owner bucket=huge-name set_session /);
    assert.ok(line.length < 1000, `the audit line is ${line.length} characters`);
    assert.ok(h.stderr().length < 200_000, 'nothing in the log holds the name');
  });

  test('params nested 100,000 deep are refused before anything runs, with a clear error, and audited', async () => {
    // Raw JSON text: no client library can serialise such a value.
    const depth = 100_000;
    const deep = '{"d":'.repeat(depth) + '"bottom"' + '}'.repeat(depth);
    const answer = await rawToolCall(h, 'deep-params', `{"name":"execute","arguments":{"key":"test.echo_args","params":{"word":"w","deep":${deep}}}}`);
    assert.match(answer, /"isError":true/);
    assert.match(answer, /'deep' is nested deeper than 64 levels; nothing was run/);
    const line = await auditLine(/ call owner bucket=deep-par… test\.echo_args /);
    assert.match(line, /-> error \(Invalid parameters for 'test\.echo_args': 'deep' is nested deeper than 64 levels/);
    assert.ok(!h.stderr().includes('Maximum call stack size exceeded'));
    const c = await connect(h, { sessionKey: 'deep-params' });
    assert.equal(await okText(c, 'execute', { key: 'test.echo_args', params: { word: 'after' } }), 'after:2:s3cret');
    await c.close();
  });
});

/** One tools/call over raw HTTP, with the arguments as given JSON text; answers the response body. */
async function rawToolCall(h: ServeHandle, sessionKey: string, paramsJson: string): Promise<string> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${h.token}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'X-MCC-Session-Key': sessionKey,
  };
  const post = (body: string, extra: Record<string, string> = {}): Promise<Response> => fetch(h.url, { method: 'POST', headers: { ...headers, ...extra }, body });
  const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  const sid = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  const session = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  await (await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session)).text();
  return (await post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":${paramsJson}}`, session)).text();
}
