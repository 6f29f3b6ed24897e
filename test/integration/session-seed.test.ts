// Every rule of the session-store seed, through a real MCP client against a
// real `mcc serve` process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { call, connect, FIXTURES, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

describe('session store over MCP', () => {
  let h: ServeHandle;
  before(async () => {
    h = await startServe(['--tools', join(FIXTURES, 'tools.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'owner1']);
  });
  after(async () => {
    assert.equal(await h.stop(), 0);
  });

  test('values keep their JSON types', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'set_session', { name: 'target', value: '10.0.0.5' }), "Set 'target'.");
    assert.equal(await okText(c, 'set_session', { name: 'budget', value: 1000 }), "Set 'budget'.");
    await okText(c, 'set_session', { name: 'hosts', value: ['a', 'b'] });
    await okText(c, 'set_session', { name: 'flag', value: false });
    await okText(c, 'set_session', { name: 'cfg', value: { depth: 2, tags: ['x'] } });
    await okText(c, 'set_session', { name: 'nothing', value: null });
    assert.equal(await okText(c, 'get_session', { name: 'target' }), '"10.0.0.5"');
    assert.equal(await okText(c, 'get_session', { name: 'budget' }), '1000');
    assert.equal(await okText(c, 'get_session', { name: 'hosts' }), '["a","b"]');
    assert.equal(await okText(c, 'get_session', { name: 'flag' }), 'false');
    assert.deepEqual(JSON.parse(await okText(c, 'get_session', { name: 'cfg' })), { depth: 2, tags: ['x'] });
    assert.equal(await okText(c, 'get_session', { name: 'nothing' }), 'null');
    await c.close();
  });

  test('unset names read as null', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'get_session', { name: 'never_set' }), 'null');
    await c.close();
  });

  test('identity keys come from the authenticated caller and are read-only', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'get_session', { name: 'user' }), '"owner1"');
    assert.equal(await okText(c, 'get_session', { name: 'email' }), '""');
    assert.deepEqual(JSON.parse(await okText(c, 'get_session', { name: 'groups' })), ['admin']);
    const tools = JSON.parse(await okText(c, 'get_session', { name: 'tools' })) as string[];
    assert.ok(tools.includes('test.ctx_echo') && tools.includes('ops.ops_only'));
    assert.deepEqual(tools, [...tools].sort());
    for (const name of ['user', 'email', 'groups', 'tools']) {
      const r = await call(c, 'set_session', { name, value: 'mallory' });
      assert.equal(r.isError, true, name);
      assert.match(text(r), /read-only|reserved/i);
    }
    assert.equal(await okText(c, 'get_session', { name: 'user' }), '"owner1"');
    await c.close();
  });

  test('names must be slugs', async () => {
    const c = await connect(h);
    for (const name of ['Target', '1st', 'a-b', 'a.b', '', 'a b', 'ü', 'x;rm']) {
      const r = await call(c, 'set_session', { name, value: 1 });
      assert.equal(r.isError, true, `accepted ${JSON.stringify(name)}`);
      assert.match(text(r), /\^\[a-z_\]\[a-z0-9_\]\*\$|lowercase/);
    }
    for (const name of ['_x', 'a1', 'snake_case_9']) assert.equal(await okText(c, 'set_session', { name, value: 1 }), `Set '${name}'.`);
    await c.close();
  });

  test('two sessions of one user have separate buckets', async () => {
    const a = await connect(h);
    const b = await connect(h);
    await okText(a, 'set_session', { name: 'only_a', value: 'A' });
    assert.equal(await okText(b, 'get_session', { name: 'only_a' }), 'null');
    assert.equal(await okText(a, 'get_session', { name: 'only_a' }), '"A"');
    await Promise.all([a.close(), b.close()]);
  });

  test('size limits refuse and store nothing', async () => {
    const c = await connect(h);
    await okText(c, 'set_session', { name: 'big', value: 'small' });
    const r = await call(c, 'set_session', { name: 'big', value: 'x'.repeat(70 * 1024) });
    assert.equal(r.isError, true);
    assert.match(text(r), /64 KiB|65536|limit/i);
    assert.equal(await okText(c, 'get_session', { name: 'big' }), '"small"');
    await c.close();
  });

  test('the bucket limit refuses the value that would overflow it, keeping the rest', async () => {
    const c = await connect(h, { sessionKey: 'bucket-limit' });
    const chunk = 'y'.repeat(60 * 1024);
    let stored = 0;
    let refusal = '';
    for (let i = 0; i < 20 && !refusal; i++) {
      const r = await call(c, 'set_session', { name: `chunk_${i}`, value: chunk });
      if (r.isError) refusal = text(r);
      else stored++;
    }
    assert.match(refusal, /bucket|1 MiB|1048576/i);
    assert.ok(stored >= 15 && stored <= 17, `stored ${stored} chunks of 60 KiB under a 1 MiB bucket`);
    assert.equal(await okText(c, 'get_session', { name: `chunk_${stored}` }), 'null');
    assert.equal(JSON.parse(await okText(c, 'get_session', { name: 'chunk_0' })), chunk);
    await c.close();
  });

  test('concurrent set_session calls lose nothing', async () => {
    const c = await connect(h, { sessionKey: 'concurrency' });
    const names = Array.from({ length: 40 }, (_, i) => `v${i}`);
    await Promise.all(names.map((name, i) => okText(c, 'set_session', { name, value: i })));
    for (const [i, name] of names.entries()) assert.equal(await okText(c, 'get_session', { name }), String(i));
    await c.close();
  });
});
