// Python fn tools run by a real python3 through mcc_runner.py.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, call, printed, pyTool, keptFn } from './helpers';

describe('Python fn tools', () => {
  const ex = keptFn();
  after(() => ex.dispose());

  test('returns the value; started says python', async () => {
    const { ctx, events } = call();
    const r = await ex.run(pyTool('fnpkg.tools:annotated'), { host: 'h', port: 1, ratio: 0.5, verbose: true, tags: [], meta: {} }, ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, { host: 'h', port: 1 });
    assert.equal(r.stdout, '{"host":"h","port":1}');
    assert.equal(r.contextOut, undefined, 'no context parameter, no contextOut');
    const started = events[0];
    assert.ok(started?.type === 'started' && started.mode === 'python' && started.command === 'fnpkg.tools:annotated');
    assert.equal(events[events.length - 1]?.type, 'exited');
  });

  test('awaits a coroutine function; dotted targets and class methods work', async () => {
    const a = await ex.run(pyTool('fnpkg.tools:fetch'), { url: 'u' }, call().ctx);
    assert.deepEqual(a.value, ['u', 'fetched']);
    const b = await ex.run(pyTool('fnpkg.tools.Greeter.greet'), { who: 'bob' }, call().ctx);
    assert.equal(b.value, 'hi bob');
    const c = await ex.run(pyTool('fnpkg.tools:Greeter.wave'), { times: 2 }, call().ctx);
    assert.equal(c.value, 'wavewave');
  });

  test('what the tool prints (print, stderr, raw fd 1) does not corrupt the result', async () => {
    const { ctx, events } = call();
    const r = await ex.run(pyTool('fnpkg.tools:noisy'), { n: 7 }, ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, { ok: true, n: 7 });
    assert.equal(r.stdout, '{"ok":true,"n":7}');
    const out = printed(events);
    for (const s of ['noise on stdout', 'noise on stderr', 'raw fd 1 noise']) assert.ok(out.includes(s), `${s} in ${out}`);
  });

  test('the context keeps its types', async () => {
    const store = { ...ALICE, s: 'x', i: 3, f: 1.5, b: true, l: [1, 'a'], d: { k: 1 }, z: null };
    const r = await ex.run(pyTool('fnpkg.tools:types'), {}, call(store).ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, {
      user: 'str', email: 'str', groups: 'list', tools: 'list',
      s: 'str', i: 'int', f: 'float', b: 'bool', l: 'list', d: 'dict', z: 'NoneType',
    });
  });

  test('contextOut: set and delete in place', async () => {
    const store = { ...ALICE, old: 'x', keep: [1] };
    const r = await ex.run(pyTool('fnpkg.tools:set_and_delete'), {}, call(store).ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.contextOut, { ...ALICE, keep: [1], cursor: 42, added: { nested: [1, 'two'] } });
  });

  test('rebinding context is not observed', async () => {
    const store = { ...ALICE, keep: 1 };
    const r = await ex.run(pyTool('fnpkg.tools:rebind'), {}, call(store).ctx);
    assert.deepEqual(r.value, ['replaced']);
    assert.deepEqual(r.contextOut, store);
  });

  test('a tool without context gets none injected but sees MCC_CTX_* in its env', async () => {
    const r = await ex.run(pyTool('fnpkg.tools:no_context', { env: { MCC_CTX_USER: 'mallory' } }), {}, call().ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.value, 'alice');
    assert.equal(r.contextOut, undefined);
  });

  test('an exception is code 1 with the traceback', async () => {
    const r = await ex.run(pyTool('fnpkg.tools:throws'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Traceback[\s\S]*ValueError: boom from python/);
    assert.equal(r.contextOut, undefined);
  });

  test('a value that is not JSON is a clear error', async () => {
    const r = await ex.run(pyTool('fnpkg.tools:not_json'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the returned value is not JSON-serialisable: Object of type set/);
  });

  test('an import error at call time comes back with the traceback', async () => {
    const r = await ex.run(pyTool('fnpkg.broken:tool'), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot import 'fnpkg\.broken:tool'[\s\S]*No module named 'module_that_does_not_exist'/);
  });

  test('an endless loop is ended by the timeout (the whole process group)', async () => {
    const t0 = Date.now();
    const r = await ex.run(pyTool('fnpkg.tools:forever', { limits: { timeout: 1 } }), {}, call().ctx);
    assert.equal(r.code, -1);
    assert.match(r.stderr, /timeout after 1s/);
    assert.ok(Date.now() - t0 < 15_000);
  });

  test('a missing interpreter is an input error', async () => {
    await assert.rejects(ex.run(pyTool('fnpkg.tools:trivial', { python: 'no-such-python' }), {}, call().ctx), /not on PATH/);
  });
});
