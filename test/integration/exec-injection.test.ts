// The session reaches exec tools as MCC_CTX / MCC_CTX_<NAME>, applied last,
// so neither the tool's env nor the server's environment can forge it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { call, connect, FIXTURES, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

describe('exec tools receive the session store', () => {
  let h: ServeHandle;
  before(async () => {
    h = await startServe(['--tools', join(FIXTURES, 'tools.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'carol'], {
      MCC_CTX_USER: 'forged-by-server-env',
      MCC_CTX_FORGED: 'forged',
    });
  });
  after(async () => {
    await h.stop();
  });

  test('variables and identity are injected with their encodings', async () => {
    const c = await connect(h);
    await okText(c, 'set_session', { name: 'target', value: '10.0.0.5' });
    await okText(c, 'set_session', { name: 'budget', value: 1000 });
    const out = await okText(c, 'execute', { key: 'test.ctx_echo' });
    const lines = Object.fromEntries(out.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    assert.equal(lines.user, 'carol');
    assert.equal(lines.target, '10.0.0.5');
    assert.equal(lines.budget, '1000');
    assert.deepEqual(JSON.parse(lines.groups), ['admin']);
    assert.ok((JSON.parse(lines.tools) as string[]).includes('test.ctx_echo'));
    const all = JSON.parse(lines.all) as Record<string, unknown>;
    assert.equal(all.user, 'carol');
    assert.equal(all.budget, 1000);
    assert.equal(all.target, '10.0.0.5');
    await c.close();
  });

  test("a tool's own env cannot shadow the caller", async () => {
    const c = await connect(h);
    const [user, email, ctx] = (await okText(c, 'execute', { key: 'test.ctx_shadow' })).split('|');
    assert.equal(user, 'carol');
    assert.equal(email, '');
    assert.equal((JSON.parse(ctx) as { user: string }).user, 'carol');
    await c.close();
  });

  test("the server's environment cannot forge MCC_CTX variables", async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'execute', { key: 'test.ctx_passthrough' }), 'carol|');
    await c.close();
  });

  test('params are validated, quoted and overrides stay hidden', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'execute', { key: 'test.echo_args', params: { word: "it's $(x)" } }), "it's $(x):2:s3cret");
    assert.equal(await okText(c, 'execute', { key: 'test.echo_args', params: { word: 'w', n: '7' } }), 'w:7:s3cret');
    for (const [params, pattern] of [
      [{}, /word/],
      [{ word: 'w', n: 'seven' }, /n.*int/i],
      [{ word: 'w', bogus: 1 }, /bogus/],
      [{ word: 'w', secret: 'mine' }, /secret/],
    ] as const) {
      const r = await call(c, 'execute', { key: 'test.echo_args', params });
      assert.equal(r.isError, true, JSON.stringify(params));
      assert.match(text(r), pattern);
    }
    const search = await okText(c, 'search', { query: 'echoes quoted word' });
    assert.match(search, /^\[\d+\.\d\d\]\n## test\.echo_args \(word:str, n:int=2\)/);
    assert.doesNotMatch(search, /secret/);
    await c.close();
  });

  test('a failing tool answers its code, stdout and stderr', async () => {
    const c = await connect(h);
    const r = await call(c, 'execute', { key: 'test.fails' });
    assert.equal(r.isError, true);
    const { duration_ms, ...rest } = r.structuredContent as { duration_ms: number };
    assert.deepEqual(rest, { returncode: 3, stdout: 'out\n', stderr: 'err\n', truncated: false });
    assert.ok(typeof duration_ms === 'number' && duration_ms >= 0);
    assert.match(text(r), /return code 3/);
    await c.close();
  });

  test('a tool over its timeout is killed with code -1', async () => {
    const c = await connect(h);
    const started = Date.now();
    const r = await call(c, 'execute', { key: 'test.sleeper' });
    assert.equal(r.isError, true);
    assert.equal((r.structuredContent as { returncode: number }).returncode, -1);
    assert.match(text(r), /timeout after 1s/);
    assert.ok(Date.now() - started < 15000);
    await c.close();
  });

  test('unknown tools are a clear error', async () => {
    const c = await connect(h);
    const r = await call(c, 'execute', { key: 'test.nope' });
    assert.equal(r.isError, true);
    assert.match(text(r), /Unknown tool 'test\.nope'/);
    await c.close();
  });

  test('every call is audited, refusals included, session values never', async () => {
    const c = await connect(h, { sessionKey: 'audit-me' });
    await okText(c, 'set_session', { name: 'api_token', value: 'very-secret-value' });
    await okText(c, 'get_session', { name: 'api_token' });
    await call(c, 'execute', { key: 'test.no_such_tool' });
    await call(c, 'execute', { key: 'test.echo_args', params: { word: 'w', n: 'x' } });
    await okText(c, 'search', { query: 'echo' });
    await okText(c, 'describe_tools');
    await c.close();
    const expected = ['set_session {"name":"api_token"} -> 0', 'get_session {"name":"api_token"} -> 0', 'test.no_such_tool {} -> error', 'test.echo_args {"word":"w","n":"x"} -> error', 'search {"query":"echo"} -> 0', 'describe_tools {} -> 0'];
    const auditLines = (): string[] => h.stderr().split('\n').filter((l) => / call carol bucket=audit-me /.test(l));
    // stderr reaches us asynchronously: wait for the last line.
    for (let i = 0; i < 50 && !auditLines().some((l) => l.includes(expected[5])); i++) await new Promise((r) => setTimeout(r, 40));
    const lines = auditLines();
    for (const what of expected) {
      assert.ok(lines.some((l) => l.includes(what)), `no audit line with ${what} in:\n${lines.join('\n')}`);
    }
    assert.doesNotMatch(h.stderr(), /very-secret-value/);
  });
});
