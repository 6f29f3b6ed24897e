// JavaScript fn tools in real worker threads.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, call, jsTool, printed, keptFn } from './helpers';

describe('JavaScript fn tools', () => {
  const ex = keptFn({ poolSize: 2 });
  after(() => ex.dispose());

  test('returns the value as JSON, with the params and the caller context', async () => {
    const { ctx, events } = call();
    const r = await ex.run(jsTool('echo'), { q: 'x', n: 2 }, ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, { params: { q: 'x', n: 2 }, user: 'alice' });
    assert.equal(r.stdout, JSON.stringify(r.value));
    const kinds = events.map((e) => e.type);
    assert.equal(kinds[0], 'started');
    assert.equal(kinds[kinds.length - 1], 'exited');
    const started = events[0];
    assert.ok(started?.type === 'started' && started.mode === 'worker');
  });

  test('awaits an async function', async () => {
    const r = await ex.run(jsTool('later'), { n: 5 }, call().ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.value, 'later 5');
  });

  test('CommonJS modules work too', async () => {
    const r = await ex.run(jsTool('add', {}, `${__dirname}/../../../../test/fixtures/fn/js/legacy.cjs`), { a: 2, b: 3 }, call().ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.value, 5);
  });

  test('what the tool prints goes to events, not into the result', async () => {
    const { ctx, events } = call();
    const r = await ex.run(jsTool('noisy'), { n: 1 }, ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, { ok: true, n: 1 });
    assert.equal(r.stdout, '{"ok":true,"n":1}');
    const out = printed(events);
    assert.match(out, /noise on stdout/);
    assert.match(out, /noise on stderr/);
    assert.match(r.stderr, /partial line without newline/);
  });

  test('the context keeps its types', async () => {
    const store = { ...ALICE, s: 'x', i: 3, f: 1.5, b: true, l: [1, 'a'], d: { k: 1 }, z: null };
    const r = await ex.run(jsTool('types'), {}, call(store).ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, {
      user: 'string', email: 'string', groups: 'list', tools: 'list',
      s: 'string', i: 'number', f: 'number', b: 'boolean', l: 'list', d: 'object', z: 'null',
    });
  });

  test('contextOut is the context as the tool left it (set and delete in place)', async () => {
    const store = { ...ALICE, old: 'gone soon', keep: 1 };
    const r = await ex.run(jsTool('setAndDelete'), {}, call(store).ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.contextOut, { ...ALICE, keep: 1, cursor: 42, added: { nested: [1, 'two'] } });
    assert.equal(store.old, 'gone soon', 'the caller\'s snapshot is a copy');
  });

  test('rebinding the context name is not observed', async () => {
    const store = { ...ALICE, keep: 1 };
    const r = await ex.run(jsTool('rebind'), {}, call(store).ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, ['replaced']);
    assert.deepEqual(r.contextOut, store);
  });

  test('MCC_CTX and the tool env are in process.env during the call', async () => {
    const r = await ex.run(jsTool('env', { env: { MY_VAR: 'mine', MCC_CTX_USER: 'mallory' } }), {}, call().ctx);
    assert.equal(r.code, 0, r.stderr);
    const v = r.value as { ctx: string; user: string; mine: string };
    assert.deepEqual(JSON.parse(v.ctx), ALICE);
    assert.equal(v.user, 'alice', 'the tool env cannot shadow the identity');
    assert.equal(v.mine, 'mine');
  });

  test('a throw is code 1 with the message and the stack', async () => {
    const r = await ex.run(jsTool('throws'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /boom from the tool/);
    assert.match(r.stderr, /tools\.mjs:\d+/);
    assert.equal(r.contextOut, undefined);
  });

  test('a value that is not JSON is a clear error', async () => {
    const r = await ex.run(jsTool('nonSerialisable'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not JSON-serialisable: value\.fn is a function/);
    const b = await ex.run(jsTool('bigint'), {}, call().ctx);
    assert.equal(b.code, 1);
    assert.match(b.stderr, /value\.n is a BigInt/);
  });

  test('a missing export or a non-function export is named', async () => {
    const r = await ex.run(jsTool('nope'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /has no export 'nope'/);
    const n = await ex.run(jsTool('notAFunction'), {}, call().ctx);
    assert.match(n.stderr, /is a number, not a function/);
  });

  test('a missing module is an input error before anything runs', async () => {
    await assert.rejects(ex.run(jsTool('x', {}, '/nonexistent/mod.mjs'), {}, call().ctx), /does not exist/);
  });

  test('process.exit in a tool ends its worker only', async () => {
    const r = await ex.run(jsTool('exits'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /worker died: the worker exited with code 3/);
    const again = await ex.run(jsTool('echo'), {}, call().ctx);
    assert.equal(again.code, 0, again.stderr);
  });
});
