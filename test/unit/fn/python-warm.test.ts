// Warm Python runners: a call reuses a process of its interpreter, cwd and
// static environment, while env, context, cwd and output stay per call;
// edited modules are imported afresh; a timeout or crash costs only that
// process; tools with Unix limits run in a process of their own.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FnTool } from '../../../src/core/catalog/types';
import type { ToolRuns } from '../../../src/core/tool-run/contract';
import { isAlive } from '../../../src/core/runner/process-tree';
import { ALICE, call, PY_DIR, printed, pyTool, keptFn } from './helpers';

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function value(ex: ToolRuns, tool: FnTool, params: Record<string, unknown> = {}, store?: Record<string, unknown>): Promise<unknown> {
  const r = await ex.run(tool, params, call(store).ctx);
  assert.equal(r.code, 0, r.stderr);
  return r.value;
}

const pidTool = pyTool('fnpkg.warm:pid');
const whoami = pyTool('fnpkg.warm:whoami', { takesContext: true });

describe('warm Python runners', () => {
  const ex = keptFn({ poolSize: 2 });
  const dirs: string[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'mcc-fn-warm-'));
    dirs.push(d);
    return d;
  };
  after(async () => {
    await ex.dispose();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('a second call reuses the process; env and context are per call; globals persist', async () => {
    const a = await value(ex, pidTool);
    const b = await value(ex, pidTool);
    assert.equal(typeof a, 'number');
    assert.equal(a, b, 'the same interpreter answered both calls');

    const one = (await value(ex, whoami, {}, { ...ALICE, target: 'one' })) as Record<string, unknown>;
    const two = (await value(ex, whoami, {}, { ...ALICE, target: 'two' })) as Record<string, unknown>;
    assert.equal(one.pid, a);
    assert.equal(two.pid, a);
    assert.deepEqual([one.env_target, one.blob_target, one.context_target, one.env_user], ['one', 'one', 'one', 'alice']);
    assert.deepEqual([two.env_target, two.blob_target, two.context_target, two.env_user], ['two', 'two', 'two', 'alice']);
    assert.equal((two.calls as number) - (one.calls as number), 1, 'module globals persist in a warm process');
    const three = (await value(ex, whoami, {}, { ...ALICE })) as Record<string, unknown>;
    assert.equal(three.env_target, null, 'a variable of an earlier call is gone');
  });

  test("another user's calls never share a process (nor its module globals)", async () => {
    const alice = (await value(ex, whoami, {}, { ...ALICE, target: 'a' })) as Record<string, unknown>;
    const bob = (await value(ex, whoami, {}, { ...ALICE, user: 'bob', target: 'b' })) as Record<string, unknown>;
    const aliceAgain = (await value(ex, whoami, {}, { ...ALICE })) as Record<string, unknown>;
    assert.notEqual(bob.pid, alice.pid);
    assert.equal(aliceAgain.pid, alice.pid);
    assert.equal(bob.env_user, 'bob');
    assert.equal(bob.calls, 1, "bob's process starts with fresh module globals");
    assert.equal((aliceAgain.calls as number) - (alice.calls as number), 1);
  });

  test('cwd, os.environ and fd 1 are reset for every call', async () => {
    const elsewhere = tempDir();
    const p = await value(ex, pyTool('fnpkg.warm:wander'), { to: elsewhere });
    const w = (await value(ex, whoami, {}, { ...ALICE })) as Record<string, unknown>;
    assert.equal(w.pid, p);
    assert.equal(w.cwd, PY_DIR);
    assert.equal(w.left_behind, null);
    const { ctx, events } = call();
    const r = await ex.run(pyTool('fnpkg.warm:say'), { text: 'hello' }, ctx);
    assert.equal(r.value, p);
    // Two pipes: each stream's text is exact, their interleaving is not ours to fix.
    const stream = (name: string): string => events.map((e) => (e.type === 'output' && e.stream === name ? e.data : '')).join('');
    assert.equal(stream('stdout'), 'hello\n');
    assert.equal(stream('stderr'), 'hello on fd 2\n');
    assert.equal(printed(events).length, 'hello\nhello on fd 2\n'.length);
  });

  test('output belongs to its own call', async () => {
    const first = call();
    await ex.run(pyTool('fnpkg.tools:noisy'), { n: 1 }, first.ctx);
    assert.match(printed(first.events), /raw fd 1 noise/);
    const second = call();
    const r = await ex.run(pyTool('fnpkg.tools:trivial'), {}, second.ctx);
    assert.equal(r.value, 'pong');
    assert.equal(printed(second.events), '');
    assert.equal(r.stderr, '');
  });

  test('a different static environment gets a process of its own', async () => {
    const plain = (await value(ex, whoami, {}, { ...ALICE })) as Record<string, unknown>;
    const other = (await value(ex, pyTool('fnpkg.warm:whoami', { takesContext: true, env: { EXTRA: '1' } }), {}, { ...ALICE })) as Record<string, unknown>;
    assert.equal(other.extra, '1');
    assert.equal(plain.extra, null);
    assert.notEqual(other.pid, plain.pid);
  });

  test('a module edited between calls is imported afresh (also a module it imports)', async () => {
    const dir = tempDir();
    const mod = join(dir, 'hot_tool.py');
    const helper = join(dir, 'hot_helper.py');
    const touch = (file: string, text: string, ahead: number): void => {
      writeFileSync(file, text);
      // Make sure the mtime moves even on a coarse-grained file system.
      const later = new Date(Date.now() + ahead * 1000);
      utimesSync(file, later, later);
    };
    const source = (v: string): string => `import os\nimport hot_helper\ncalls = 0\n\ndef version():\n    global calls\n    calls += 1\n    return {"v": "${v}", "helper": hot_helper.VALUE, "calls": calls, "pid": os.getpid()}\n`;
    touch(helper, 'VALUE = "h1"\n', 0);
    touch(mod, source('one'), 0);
    const tool = pyTool('hot_tool:version', { cwd: dir });
    const a = (await value(ex, tool)) as Record<string, unknown>;
    const b = (await value(ex, tool)) as Record<string, unknown>;
    assert.deepEqual([a.v, a.calls, b.v, b.calls, b.pid], ['one', 1, 'one', 2, a.pid]);
    touch(mod, source('two'), 5);
    const c = (await value(ex, tool)) as Record<string, unknown>;
    assert.deepEqual([c.v, c.helper, c.calls, c.pid], ['two', 'h1', 1, a.pid]);
    touch(helper, 'VALUE = "h2"\n', 10);
    const d = (await value(ex, tool)) as Record<string, unknown>;
    assert.deepEqual([d.v, d.helper, d.calls, d.pid], ['two', 'h2', 1, a.pid]);

    // Broken, then fixed: the traceback as for a one-shot run, then the new code.
    touch(mod, 'def version(:\n', 15);
    const broken = await ex.run(tool, {}, call().ctx);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /cannot import 'hot_tool:version'[\s\S]*Traceback[\s\S]*SyntaxError/);
    touch(mod, source('three'), 20);
    const e = (await value(ex, tool)) as Record<string, unknown>;
    assert.deepEqual([e.v, e.calls, e.pid], ['three', 1, a.pid]);
  });

  test('a timeout kills the warm process; the next call gets a new one', async () => {
    const before = await value(ex, pidTool);
    const r = await ex.run(pyTool('fnpkg.tools:forever', { limits: { timeout: 1 } }), {}, call().ctx);
    assert.equal(r.code, -1);
    assert.match(r.stderr, /timeout after 1s/);
    await waitFor(() => !isAlive(before as number), 10_000);
    const next = await value(ex, pidTool);
    assert.notEqual(next, before);
    assert.equal(await value(ex, pidTool), next);
  });

  test('a crash costs only that process', async () => {
    const before = await value(ex, pidTool);
    const r = await ex.run(pyTool('fnpkg.warm:crash'), {}, call().ctx);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /exited with code 3 without a result/);
    const next = await value(ex, pidTool);
    assert.notEqual(next, before);
  });

  test('a tool with limits.mem_mb runs in an interpreter of its own', async () => {
    const warm = await value(ex, pidTool);
    const limited = pyTool('fnpkg.warm:pid', { limits: { mem_mb: 2048 } });
    const a = await value(ex, limited);
    const b = await value(ex, limited);
    assert.notEqual(a, warm);
    assert.notEqual(b, warm);
    assert.notEqual(a, b, 'one interpreter per call');
    assert.equal(await value(ex, pidTool), warm);
  });

  test('more concurrent calls than processes wait for a warm one instead of starting interpreters', async () => {
    // The fallback to one-shot is the next test's; here no wait is long enough for it,
    // however slowly a loaded machine starts the interpreter.
    const one = keptFn({ poolSize: 1, pythonQueueWaitMs: 60_000 });
    try {
      const slow = pyTool('fnpkg.warm:slow');
      const pids = await Promise.all([0, 1, 2].map(() => value(one, slow, { seconds: 0.1 })));
      assert.equal(new Set(pids).size, 1, `one warm process answered all three: ${pids.join(', ')}`);
      const many = await Promise.all(Array.from({ length: 12 }, () => value(one, pidTool)));
      assert.equal(new Set(many).size, 1, 'twelve quick calls share the warm process');
    } finally {
      await one.dispose();
    }
  });

  test('a call that waits longer than pythonQueueWaitMs for a busy process runs one-shot', async () => {
    const one = keptFn({ poolSize: 1, pythonQueueWaitMs: 200 });
    try {
      const slow = pyTool('fnpkg.warm:slow');
      const long = value(one, slow, { seconds: 2 });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const other = await value(one, pidTool);
      assert.ok(Date.now() - t0 < 1900, 'it did not wait for the long call');
      assert.notEqual(other, await long, 'it ran in an interpreter of its own');
    } finally {
      await one.dispose();
    }
  });

  test('a waiting call can be cancelled or time out before it runs, and shutdown ends it', async () => {
    const one = keptFn({ poolSize: 1, pythonQueueWaitMs: 60_000 });
    try {
      const slow = pyTool('fnpkg.warm:slow');
      const busy = one.run(slow, { seconds: 1.5 }, call().ctx);
      await new Promise((r) => setTimeout(r, 100));
      const abort = new AbortController();
      const waiting = one.run(pidTool, {}, { ...call().ctx, signal: abort.signal });
      const short = one.run(pyTool('fnpkg.warm:pid', { limits: { timeout: 0.3 } }), {}, call().ctx);
      abort.abort();
      const cancelled = await waiting;
      assert.equal(cancelled.code, -1);
      assert.match(cancelled.stderr, /cancelled/);
      const timedOut = await short;
      assert.equal(timedOut.code, -1);
      assert.match(timedOut.stderr, /timeout after 0.3s/);
      assert.equal((await busy).code, 0);
      const late = one.run(slow, { seconds: 1 }, call().ctx);
      const queued = one.run(pidTool, {}, call().ctx);
      await new Promise((r) => setTimeout(r, 100));
      await one.dispose();
      assert.match((await queued).stderr, /shutting down/);
      assert.equal((await late).code, -1);
    } finally {
      await one.dispose();
    }
  });

  test('an idle process exits after pythonIdleSec; dispose kills the rest', async () => {
    const quick = keptFn({ poolSize: 1, pythonIdleSec: 0.2 });
    let second: unknown;
    try {
      const first = await value(quick, pidTool);
      await waitFor(() => !isAlive(first as number), 10_000);
      second = await value(quick, pidTool);
      assert.notEqual(second, first);
    } finally {
      await quick.dispose();
    }
    assert.equal(isAlive(second as number), false);
  });
});
