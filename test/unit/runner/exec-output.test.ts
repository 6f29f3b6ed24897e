// Output caps, transforms and the cache_ttl cache, with real processes.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALICE, HOST_PATH, call, execTool, keptExec, param, sleep, tempDir } from './helpers';

const PATH_ENV = { PATH: HOST_PATH };
const MiB = 1024 * 1024;
const fifty = `head -c ${50 * MiB} /dev/zero | tr '\\0' a`;

describe('output cap', () => {
  test('50 MiB on stdout: bounded result, marker, prompt return, process not blocked', async () => {
    const ex = keptExec({ defaultMode: 'pipe' });
    const { ctx, events } = call();
    const begin = Date.now();
    const out = await ex.run(execTool({ command: `${fifty}; echo finished >&2`, env: PATH_ENV, limits: { timeout: 60 } }), {}, ctx);
    const elapsed = Date.now() - begin;
    assert.equal(out.code, 0, out.stderr);
    assert.ok(out.stdout.startsWith('a'.repeat(1000)));
    assert.ok(out.stdout.endsWith('\n[mcc: output truncated, 49.0 MiB cut]'), out.stdout.slice(-80));
    assert.ok(out.stdout.length < MiB + 100);
    assert.equal(out.stderr, 'finished\n', 'the writer ran to its end: it was never blocked');
    assert.ok(elapsed < 20000, `took ${elapsed} ms`);
    const streamed = events.reduce((n, e) => n + (e.type === 'output' && e.stream === 'stdout' ? e.data.length : 0), 0);
    assert.ok(streamed < MiB + 100, 'events are capped too');
  });

  test('stdout and stderr are capped separately, with a configurable cap', async () => {
    const ex = keptExec({ defaultMode: 'pipe', maxOutputBytes: 1000 });
    const out = await ex.run(execTool({ command: `head -c 5000 /dev/zero | tr '\\0' o; head -c 3000 /dev/zero | tr '\\0' e >&2`, env: PATH_ENV }), {}, call().ctx);
    assert.equal(out.stdout, `${'o'.repeat(1000)}\n[mcc: output truncated, 3.9 KiB cut]`);
    assert.equal(out.stderr, `${'e'.repeat(1000)}\n[mcc: output truncated, 2.0 KiB cut]`);
  });

  test('pty mode caps too', async () => {
    const ex = keptExec({ defaultMode: 'pty', maxOutputBytes: 64 * 1024 });
    const out = await ex.run(execTool({ command: `head -c ${10 * MiB} /dev/zero | tr '\\0' p`, env: PATH_ENV, limits: { timeout: 60 } }), {}, call().ctx);
    assert.equal(out.code, 0);
    assert.ok(out.stdout.length <= 64 * 1024 + 100);
    assert.match(out.stdout, /\[mcc: output truncated, 9\.9 MiB cut\]$/);
  });
});

describe('transform', () => {
  const ex = keptExec({ defaultMode: 'pipe' });

  test('pipes the successful stdout through the templated transform', async () => {
    const tool = execTool({
      command: "printf 'b\\na\\nc\\n'",
      transform: 'sort | head -n {{ n }} | tr a-z A-Z',
      params: [param('n', { type: 'int' })],
      env: PATH_ENV,
    });
    const out = await ex.run(tool, { n: 2 }, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'A\nB\n');
  });

  test('the transform sees the same env (MCC_CTX included)', async () => {
    const tool = execTool({ command: 'echo x', transform: 'read -r v; echo "$v $MCC_CTX_USER $ONLY"', env: { ONLY: 'mine' } });
    const out = await ex.run(tool, {}, call().ctx);
    assert.equal(out.stdout, 'x alice mine\n');
  });

  test('is skipped when the tool failed', async () => {
    const t = tempDir();
    try {
      const tool = execTool({ command: 'echo out; exit 3', transform: 'echo ran > transform-ran; tr a-z A-Z', cwd: t.dir, env: PATH_ENV });
      const out = await ex.run(tool, {}, call().ctx);
      assert.equal(out.code, 3);
      assert.equal(out.stdout, 'out\n');
      assert.equal(existsSync(join(t.dir, 'transform-ran')), false);
    } finally {
      t.cleanup();
    }
  });

  test('a failing transform fails the call and says so', async () => {
    const out = await ex.run(execTool({ command: 'echo data', transform: 'echo bad >&2; exit 5' }), {}, call().ctx);
    assert.equal(out.code, 5);
    assert.match(out.stderr, /^bad\nmcc: the transform failed with code 5$/);
  });

  test('shares the timeout budget with the command', async () => {
    const tool = execTool({ command: '/bin/sleep 0.6; echo x', transform: '/bin/sleep 10', limits: { timeout: 1.5 } });
    const begin = Date.now();
    const out = await keptExec({ defaultMode: 'pipe', killGraceMs: 200 }).run(tool, {}, call().ctx);
    assert.equal(out.code, -1);
    assert.match(out.stderr, /timeout after 1\.5s \(in the transform\)/);
    assert.ok(Date.now() - begin < 6000);
  });
});

describe('cache_ttl', () => {
  test('an identical call within the ttl is answered from the cache; the side effect happens once', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pipe' });
      const tool = execTool({ command: 'echo run >> count; echo "hello {{ who }}"', params: [param('who')], cwd: t.dir, cacheTtl: 60 });
      const count = (): number => readFileSync(join(t.dir, 'count'), 'utf8').split('\n').filter(Boolean).length;
      const first = await ex.run(tool, { who: 'a' }, call().ctx);
      const { ctx, events } = call();
      const second = await ex.run(tool, { who: 'a' }, ctx);
      assert.equal(second.stdout, 'hello a\n');
      assert.equal(second.stdout, first.stdout);
      assert.equal(count(), 1);
      const exited = events.find((e) => e.type === 'exited');
      assert.ok(exited?.type === 'exited' && exited.cached === true);
      assert.equal(events.some((e) => e.type === 'output'), false);

      await ex.run(tool, { who: 'b' }, call().ctx); // other params
      assert.equal(count(), 2);
      await ex.run(tool, { who: 'a' }, call({ ...ALICE, user: 'bob' }).ctx); // other caller
      assert.equal(count(), 3);
      await ex.run(tool, { who: 'a' }, call({ ...ALICE, target: 'x' }).ctx); // other variables
      assert.equal(count(), 4);
      await ex.run({ ...tool, key: 'other.tool' }, { who: 'a' }, call().ctx); // other tool
      assert.equal(count(), 5);
    } finally {
      t.cleanup();
    }
  });

  test('entries expire after the ttl', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pipe' });
      const tool = execTool({ command: 'echo run >> count', cwd: t.dir, cacheTtl: 0.3 });
      await ex.run(tool, {}, call().ctx);
      await ex.run(tool, {}, call().ctx);
      assert.equal(readFileSync(join(t.dir, 'count'), 'utf8'), 'run\n');
      await sleep(450);
      await ex.run(tool, {}, call().ctx);
      assert.equal(readFileSync(join(t.dir, 'count'), 'utf8'), 'run\nrun\n');
    } finally {
      t.cleanup();
    }
  });

  test('failures are not cached', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pipe' });
      const tool = execTool({ command: 'echo run >> count; exit 1', cwd: t.dir, cacheTtl: 60 });
      await ex.run(tool, {}, call().ctx);
      await ex.run(tool, {}, call().ctx);
      assert.equal(readFileSync(join(t.dir, 'count'), 'utf8'), 'run\nrun\n');
    } finally {
      t.cleanup();
    }
  });
});
