// Timeouts, memory limits and crashes of JavaScript fn tools: the worker is
// ended and replaced, and the test process lives on.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, jsTool, keptFn } from './helpers';

describe('JavaScript fn tool limits', () => {
  const ex = keptFn({ poolSize: 2 });
  after(() => ex.dispose());

  test('an endless synchronous loop is ended by the timeout', async () => {
    const { ctx, events } = call();
    const t0 = Date.now();
    const r = await ex.run(jsTool('forever', { limits: { timeout: 0.5 } }), {}, ctx);
    assert.equal(r.code, -1);
    assert.match(r.stderr, /timeout after 0\.5s/);
    assert.ok(Date.now() - t0 < 10_000, 'ended long before the margin');
    const exited = events[events.length - 1];
    assert.ok(exited?.type === 'exited' && exited.code === -1);
    // The pool still answers, on a fresh worker.
    const next = await ex.run(jsTool('echo'), {}, call().ctx);
    assert.equal(next.code, 0, next.stderr);
  });

  test('a promise that never settles is ended by the timeout', async () => {
    const r = await ex.run(jsTool('foreverAsync', { limits: { timeout: 0.3 } }), {}, call().ctx);
    assert.equal(r.code, -1);
    assert.match(r.stderr, /timeout after 0\.3s/);
  });

  test('the default timeout applies when the tool sets none', async () => {
    const short = keptFn({ poolSize: 1, defaultTimeoutSec: 0.3 });
    try {
      const r = await short.run(jsTool('forever'), {}, call().ctx);
      assert.equal(r.code, -1);
      assert.match(r.stderr, /timeout after 0\.3s/);
    } finally {
      await short.dispose();
    }
  });

  test('cancelling a call ends it', async () => {
    const abort = new AbortController();
    const p = ex.run(jsTool('forever'), {}, call(undefined, abort.signal).ctx);
    setTimeout(() => abort.abort(), 200);
    const r = await p;
    assert.equal(r.code, -1);
    assert.match(r.stderr, /cancelled/);
  });

  test('a worker running out of its mem_mb heap does not take the process down', async () => {
    const r = await ex.run(jsTool('hog', { limits: { mem_mb: 32, timeout: 60 } }), {}, call().ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /resource limit hit: the tool ran out of memory \(limits\.mem_mb=32\)/);
    const next = await ex.run(jsTool('echo'), { after: 'oom' }, call().ctx);
    assert.equal(next.code, 0, next.stderr);
  });

  test('calls run in parallel on the pool, and a full pool queues', async () => {
    const slow = jsTool('later');
    const t0 = Date.now();
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => ex.run(slow, { n }, call().ctx)));
    assert.deepEqual(results.map((r) => r.value), [1, 2, 3, 4, 5].map((n) => `later ${n}`));
    assert.ok(Date.now() - t0 < 10_000);
  });

  test('after dispose, calls are refused', async () => {
    const ex2 = keptFn({ poolSize: 1 });
    const running = ex2.run(jsTool('forever'), {}, call().ctx);
    await new Promise((r) => setTimeout(r, 100));
    await ex2.dispose();
    const r = await running;
    assert.equal(r.code, -1);
    assert.match(r.stderr, /shutting down/);
    await assert.rejects(ex2.run(jsTool('echo'), {}, call().ctx), /shutting down/);
  });
});
