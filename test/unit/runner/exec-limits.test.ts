// Each limit actually hit by a real process, and the kill paths: timeout,
// cancellation, shutdown, leftovers. Timing margins are generous on purpose.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_PATH, call, execTool, isAlive, readPid, tempDir, waitFor, keptExec } from './helpers';

const PATH_ENV = { PATH: HOST_PATH };

// The real interpreter, not a version manager's shim script: the shim
// itself would run under the memory limit too.
function pythonPath(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}
const PYTHON = pythonPath();

describe('resource limits', () => {
  const ex = keptExec({ defaultMode: 'pipe' });

  // What a hog does under RLIMIT_AS (found out on Debian's dash 0.5.12):
  // nothing kills it for exceeding the limit, its allocations fail. dash
  // then either reports "Out of space" and exits 2, or dies of SIGSEGV
  // where it does not check a failed allocation - which one depends on the
  // limit. Python raises MemoryError and exits 1. Every case is explained.
  const hog = 'x=a; while :; do x="$x$x"; done';
  const memoryNote = /resource limit hit: memory \(address space\) exhausted/;

  for (const mb of [16, 32]) {
    test(`mem_mb=${mb}: a shell memory hog fails to allocate, and the answer says so`, async () => {
      const out = await ex.run(execTool({ command: hog, limits: { mem_mb: mb, timeout: 20 } }), {}, call().ctx);
      if (out.code === 2) {
        assert.match(out.stderr, /Out of space/);
        assert.match(out.stderr, new RegExp(`an allocation failed under mem_mb=${mb} and the program exited with code 2`));
      } else {
        assert.equal(out.code, -11, out.stderr);
        assert.match(out.stderr, /died of SIGSEGV after an allocation failed/);
      }
      assert.match(out.stderr, memoryNote);
      assert.match(out.stderr, new RegExp(`\\[limits: \\{"mem_mb":${mb},"timeout":20\\}\\]`));
    });
  }

  test('mem_mb in pty mode: the note is there too (the shell message is in stdout)', async () => {
    const out = await keptExec({ defaultMode: 'pty' }).run(execTool({ command: hog, limits: { mem_mb: 16, timeout: 20 } }), {}, call().ctx);
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, memoryNote);
  });

  test('mem_mb: Python gets MemoryError (exit 1), explained', { skip: PYTHON === undefined }, async () => {
    const tool = execTool({ command: `${PYTHON ?? 'python3'} -c 'x = bytearray(1 << 31)'`, limits: { mem_mb: 128 } });
    const out = await ex.run(tool, {}, call().ctx);
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /MemoryError/);
    assert.match(out.stderr, /allocation failed under mem_mb=128 and the program exited with code 1/);
  });

  test('cpu_sec: a CPU spin dies of SIGXCPU', async () => {
    const tool = execTool({ command: 'while :; do :; done', limits: { cpu_sec: 1, timeout: 30 } });
    const out = await ex.run(tool, {}, call().ctx);
    assert.equal(out.code, -24, out.stderr);
    assert.match(out.stderr, /resource limit hit: cpu time exceeded \(SIGXCPU\) \[limits: \{"cpu_sec":1,"timeout":30\}\]/);
  });

  test('cpu_sec: a spinning child of the shell is reported the same way', async () => {
    const tool = execTool({ command: "/bin/sh -c 'while :; do :; done'; exit $?", limits: { cpu_sec: 1, timeout: 30 } });
    const out = await ex.run(tool, {}, call().ctx);
    assert.equal(out.code, -24, out.stderr);
    assert.match(out.stderr, /cpu time exceeded/);
  });

  test('fsize_mb: a large file write dies of SIGXFSZ and the file stays at the limit', async () => {
    const t = tempDir();
    try {
      const tool = execTool({ command: 'head -c 5000000 /dev/zero > big.bin', cwd: t.dir, env: PATH_ENV, limits: { fsize_mb: 1 } });
      const out = await ex.run(tool, {}, call().ctx);
      assert.equal(out.code, -25, out.stderr);
      assert.match(out.stderr, /resource limit hit: file size exceeded \(SIGXFSZ\)/);
      assert.ok(statSync(join(t.dir, 'big.bin')).size <= 1024 * 1024);
    } finally {
      t.cleanup();
    }
  });

  test('nofile: too many open files is EMFILE for the tool, not a kill', async () => {
    const t = tempDir();
    try {
      const names = Array.from({ length: 40 }, (_, i) => `f${i}`);
      for (const n of names) writeFileSync(join(t.dir, n), `${n}\n`);
      const tool = execTool({ command: `paste ${names.join(' ')}`, cwd: t.dir, env: PATH_ENV, limits: { nofile: 16 } });
      const out = await ex.run(tool, {}, call().ctx);
      assert.equal(out.code, 1, out.stderr);
      assert.match(out.stderr, /Too many open files/);
      assert.doesNotMatch(out.stderr, /resource limit hit/);
      const fine = await ex.run({ ...tool, limits: { nofile: 64 } }, {}, call().ctx);
      assert.equal(fine.code, 0, fine.stderr);
    } finally {
      t.cleanup();
    }
  });
});

describe('stopping runs', () => {
  // The leader and its child ignore SIGTERM; the grandchild sleeps.
  const stubborn =
    "trap '' TERM; /bin/sh -c 'trap \"\" TERM; echo $$ > child.pid; /bin/sleep 60 & echo $! > grand.pid; wait' & " +
    'echo started; wait; echo never';

  test('timeout kills the whole tree, SIGTERM-ignoring child and grandchild included', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pipe', killGraceMs: 300 });
      const begin = Date.now();
      const out = await ex.run(execTool({ command: stubborn, cwd: t.dir, limits: { timeout: 1 } }), {}, call().ctx);
      const elapsed = Date.now() - begin;
      assert.equal(out.code, -1);
      assert.match(out.stderr, /timeout after 1s$/);
      assert.equal(out.stdout, 'started\n');
      assert.ok(elapsed >= 900 && elapsed < 8000, `took ${elapsed} ms`);
      const child = readPid(join(t.dir, 'child.pid'));
      const grand = readPid(join(t.dir, 'grand.pid'));
      assert.equal(isAlive(child), false, 'child survived');
      assert.equal(isAlive(grand), false, 'grandchild survived');
    } finally {
      t.cleanup();
    }
  });

  test('timeout in pty mode kills the tree too', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pty', killGraceMs: 300 });
      const out = await ex.run(execTool({ command: stubborn, cwd: t.dir, limits: { timeout: 1 } }), {}, call().ctx);
      assert.equal(out.code, -1);
      assert.match(out.stderr, /timeout after 1s/);
      assert.equal(isAlive(readPid(join(t.dir, 'child.pid'))), false);
      assert.equal(isAlive(readPid(join(t.dir, 'grand.pid'))), false);
    } finally {
      t.cleanup();
    }
  });

  test('a descendant that left the group with setsid is killed too', { skip: !existsSync('/usr/bin/setsid') }, async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pipe', killGraceMs: 200 });
      const tool = execTool({ command: '/usr/bin/setsid /bin/sleep 60 & echo $! > esc.pid; wait', cwd: t.dir, limits: { timeout: 1 } });
      const out = await ex.run(tool, {}, call().ctx);
      assert.equal(out.code, -1);
      assert.equal(isAlive(readPid(join(t.dir, 'esc.pid'))), false);
    } finally {
      t.cleanup();
    }
  });

  test('cancellation mid-run kills the tree and says cancelled', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pty', killGraceMs: 300 });
      const abort = new AbortController();
      const { ctx, events } = call(undefined, abort.signal);
      const begin = Date.now();
      const running = ex.run(execTool({ command: stubborn, cwd: t.dir }), {}, ctx);
      assert.ok(await waitFor(() => existsSync(join(t.dir, 'grand.pid')), 5000));
      abort.abort();
      const out = await running;
      assert.equal(out.code, -1);
      assert.match(out.stderr, /cancelled$/);
      assert.ok(Date.now() - begin < 8000);
      assert.equal(isAlive(readPid(join(t.dir, 'child.pid'))), false);
      assert.equal(isAlive(readPid(join(t.dir, 'grand.pid'))), false);
      const exited = events.find((e) => e.type === 'exited');
      assert.ok(exited?.type === 'exited' && exited.code === -1 && exited.error === 'cancelled');
    } finally {
      t.cleanup();
    }
  });

  test('an already aborted call runs nothing', async () => {
    const t = tempDir();
    try {
      const abort = new AbortController();
      abort.abort();
      const out = await keptExec({ defaultMode: 'pty' }).run(execTool({ command: 'echo ran > ran.txt', cwd: t.dir }), {}, call(undefined, abort.signal).ctx);
      assert.equal(out.code, -1);
      assert.equal(out.stderr, 'cancelled');
      assert.equal(existsSync(join(t.dir, 'ran.txt')), false);
    } finally {
      t.cleanup();
    }
  });

  test('dispose stops every run and resolves when they are gone', async () => {
    const t = tempDir();
    try {
      const ex = keptExec({ defaultMode: 'pipe', killGraceMs: 300 });
      const running = ex.run(execTool({ command: stubborn, cwd: t.dir }), {}, call().ctx);
      assert.ok(await waitFor(() => existsSync(join(t.dir, 'grand.pid')), 5000));
      await ex.dispose();
      assert.equal(isAlive(readPid(join(t.dir, 'child.pid'))), false);
      assert.equal(isAlive(readPid(join(t.dir, 'grand.pid'))), false);
      const out = await running;
      assert.equal(out.code, -1);
      assert.match(out.stderr, /shutting down/);
      await assert.rejects(ex.run(execTool({ command: 'true' }), {}, call().ctx), /shutting down/);
    } finally {
      t.cleanup();
    }
  });

  test('background processes left by a finished tool do not survive the call', async () => {
    const t = tempDir();
    try {
      for (const mode of ['pipe', 'pty'] as const) {
        const ex = keptExec({ defaultMode: mode, killGraceMs: 300 });
        const out = await ex.run(execTool({ command: '/bin/sleep 60 & echo $! > bg.pid; echo done', cwd: t.dir }), {}, call().ctx);
        assert.equal(out.code, 0);
        assert.equal(out.stdout, 'done\n');
        assert.equal(isAlive(readPid(join(t.dir, 'bg.pid'))), false, `${mode}: background sleep survived`);
      }
    } finally {
      t.cleanup();
    }
  });
});
