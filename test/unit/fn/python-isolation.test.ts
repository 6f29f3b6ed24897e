// Warm Python runners keep nothing of one caller's for another, and nothing
// a call left behind outlives the process: anonymous sessions get processes
// of their own; background processes die with their runner (warm or
// one-shot); a call whose answer never comes ends quickly; sys.stdin, fd 0,
// the umask and the json module are not carried from call to call; an answer
// of the wrong shape is reported, not crashed on.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FnTool } from '../../../src/core/catalog/types';
import type { ToolRuns } from '../../../src/core/tool-run/contract';
import { parseAnswer, warmPartition } from '../../../src/core/fn/python/python-call';
import { isAlive } from '../../../src/core/runner/process-tree';
import type { RunContext } from '../../../src/core/tool-run/contract';
import { ALICE, pyTool, keptFn } from './helpers';

const ANON = { user: 'anonymous', email: '', groups: ['public'], tools: ['test.tool'] };

function ctxOf(store: Record<string, unknown>, sessionKey: string): RunContext {
  return {
    runId: randomUUID(),
    caller: { user: typeof store.user === 'string' ? store.user : 'anonymous', bucketKey: sessionKey },
    store,
    events: { emit: () => undefined },
  };
}

async function value(ex: ToolRuns, tool: FnTool, params: Record<string, unknown> = {}, store: Record<string, unknown> = ALICE, session = 's1'): Promise<unknown> {
  const r = await ex.run(tool, params, ctxOf(store, session));
  assert.equal(r.code, 0, r.stderr);
  return r.value;
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const tool = (name: string, over: Partial<FnTool> = {}): FnTool => pyTool(`fnpkg.leaks:${name}`, over);

describe('warm Python runners: isolation', () => {
  const dirs: string[] = [];
  const sleepers: number[] = [];
  const executors: Array<ReturnType<typeof keptFn>> = [];
  const executor = (opts: Parameters<typeof keptFn>[0] = { poolSize: 2 }): ReturnType<typeof keptFn> => {
    const ex = keptFn(opts);
    executors.push(ex);
    return ex;
  };
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'mcc-fn-iso-'));
    dirs.push(d);
    return d;
  };
  const readPid = (file: string): number => {
    const pid = Number(readFileSync(file, 'utf8').trim());
    sleepers.push(pid);
    return pid;
  };
  after(async () => {
    await Promise.all(executors.map((ex) => ex.dispose()));
    for (const pid of sleepers) {
      try {
        if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('anonymous callers of different sessions never share a process; one session keeps its own', async () => {
    const ex = executor();
    const a = (await value(ex, tool('who'), {}, ANON, 'session-a')) as Record<string, unknown>;
    const b = (await value(ex, tool('who'), {}, ANON, 'session-b')) as Record<string, unknown>;
    const aAgain = (await value(ex, tool('who'), {}, ANON, 'session-a')) as Record<string, unknown>;
    assert.equal(a.user, 'anonymous');
    assert.notEqual(b.pid, a.pid, 'another anonymous session gets a process of its own');
    assert.equal(aAgain.pid, a.pid, 'the same anonymous session keeps its process');
    // A signed-in user's process is the user's, across sessions.
    const alice1 = (await value(ex, tool('who'), {}, ALICE, 'alice-1')) as Record<string, unknown>;
    const alice2 = (await value(ex, tool('who'), {}, ALICE, 'alice-2')) as Record<string, unknown>;
    assert.equal(alice2.pid, alice1.pid);
    assert.notEqual(alice1.pid, a.pid);
  });

  test('the partition: user, and the session for anonymous callers (by caller or by store)', () => {
    const p = (user: string, storeUser: unknown, sessionKey: string): string =>
      warmPartition({ caller: { user, bucketKey: sessionKey }, store: storeUser === undefined ? {} : { user: storeUser } });
    assert.equal(p('alice', 'alice', 's1'), p('alice', 'alice', 's2'));
    assert.notEqual(p('alice', 'alice', 's1'), p('bob', 'bob', 's1'));
    assert.notEqual(p('anonymous', 'anonymous', 's1'), p('anonymous', 'anonymous', 's2'));
    assert.notEqual(p('anonymous', undefined, 's1'), p('anonymous', undefined, 's2'));
    assert.notEqual(p('alice', 'anonymous', 's1'), p('alice', 'anonymous', 's2'));
    assert.equal(p('anonymous', 'anonymous', 's1'), p('anonymous', 'anonymous', 's1'));
  });

  test('an idle warm process that exits takes the background processes of its tools with it', async () => {
    const ex = executor({ poolSize: 1, pythonIdleSec: 0.3 });
    const pidfile = join(tempDir(), 'sleeper.pid');
    const runner = (await value(ex, tool('spawn_sleeper'), { pidfile })) as number;
    const sleeper = readPid(pidfile);
    assert.equal(isAlive(sleeper), true, 'the background process runs after the call');
    await waitFor(() => !isAlive(runner), 10_000);
    await waitFor(() => !isAlive(sleeper), 5_000);
  });

  test('an evicted warm process takes the background processes of its tools with it', async () => {
    const ex = executor({ poolSize: 1 });
    const pidfile = join(tempDir(), 'sleeper.pid');
    const runner = (await value(ex, tool('spawn_sleeper'), { pidfile }, ALICE)) as number;
    const sleeper = readPid(pidfile);
    assert.equal(isAlive(sleeper), true);
    const bob = (await value(ex, tool('who'), {}, { ...ALICE, user: 'bob' })) as Record<string, unknown>;
    assert.notEqual(bob.pid, runner, "bob's call evicted alice's idle process");
    await waitFor(() => !isAlive(runner), 10_000);
    await waitFor(() => !isAlive(sleeper), 5_000);
  });

  test('a one-shot run takes the background processes of its tool with it', async () => {
    const ex = executor();
    const pidfile = join(tempDir(), 'sleeper.pid');
    const runner = (await value(ex, tool('spawn_sleeper', { limits: { mem_mb: 2048 } }), { pidfile })) as number;
    const sleeper = readPid(pidfile);
    assert.equal(isAlive(runner), false, 'the interpreter ran one-shot and is gone');
    await waitFor(() => !isAlive(sleeper), 3_000);
  });

  test('fences without an answer end the call within a short grace, and the process is killed', async () => {
    const ex = executor();
    const dir = tempDir();
    const pidfile = join(dir, 'runner.pid');
    const before = (await value(ex, tool('who'))) as Record<string, unknown>;
    const t = Date.now();
    const r = await ex.run(tool('steal_channel', { limits: { timeout: 15 } }), { pidfile, sink: join(dir, 'sink') }, ctxOf(ALICE, 's1'));
    const took = Date.now() - t;
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /without a result/);
    assert.doesNotMatch(r.stderr, /timeout/);
    assert.ok(took < 5000, `the call ended after ${took} ms`);
    const runner = Number(readFileSync(pidfile, 'utf8').trim());
    assert.equal(runner, before.pid, 'it ran in the warm process');
    await waitFor(() => !isAlive(runner), 5_000);
    const next = (await value(ex, tool('who'))) as Record<string, unknown>;
    assert.notEqual(next.pid, runner, 'the next call gets a new process');
  });

  test('sys.stdin and fd 0 are reset for every call', async () => {
    const ex = executor();
    const file = join(tempDir(), 'input.txt');
    writeFileSync(file, 'leaked via fd 0\n');
    const pid = await value(ex, tool('spoil_stdin'), { path: file });
    const r = (await value(ex, tool('read_stdin'))) as Record<string, unknown>;
    assert.equal(r.pid, pid, 'the same warm process');
    assert.equal(r.sys, '');
    assert.equal(r.fd, '');
  });

  test('the umask is reset for every call', async () => {
    const ex = executor();
    const first = (await value(ex, tool('get_umask'))) as Record<string, unknown>;
    const mask = first.umask === 0o077 ? 0o070 : 0o077;
    const pid = await value(ex, tool('set_umask'), { mask });
    const second = (await value(ex, tool('get_umask'))) as Record<string, unknown>;
    assert.equal(pid, first.pid);
    assert.equal(second.pid, first.pid, 'the same warm process');
    assert.equal(second.umask, first.umask);
  });

  test('a tool that patches json.dumps / json.loads cannot forge answers nor break the process', async () => {
    const ex = executor();
    const before = (await value(ex, tool('who'))) as Record<string, unknown>;
    assert.equal(await value(ex, tool('patch_json')), 'real');
    const later = (await value(ex, tool('who'))) as Record<string, unknown>;
    assert.equal(later.pid, before.pid, 'the same warm process answered');
    await ex.dispose();
  });

  test('an answer of the wrong shape is reported as no result', async () => {
    const ex = executor();
    const r = await ex.run(tool('bad_answer'), {}, ctxOf(ALICE, 's1'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /without a result/);
  });

  test('parseAnswer accepts only the runner\'s shapes', () => {
    for (const bad of ['null', '[]', '1', '"x"', '{}', '{"ok": "yes"}', '{"ok": true}', '{"ok": true, "value": 1}',
      '{"ok": true, "value": 1, "takesContext": "no"}', '{"ok": true, "value": 1, "takesContext": true, "context": []}',
      '{"ok": true, "value": 1, "takesContext": true, "contextError": 5}', '{"ok": false}', '{"ok": false, "stage": "call"}',
      '{"ok": false, "stage": "elsewhere", "error": "e", "traceback": ""}', '{"ok": false, "stage": "call", "error": "e"}', 'not json']) {
      assert.equal(parseAnswer(bad), undefined, bad);
    }
    assert.deepEqual(parseAnswer('{"ok": true, "value": null, "takesContext": false}'), { ok: true, value: null, takesContext: false });
    assert.deepEqual(parseAnswer('{"ok": true, "value": 1, "takesContext": true, "context": {"a": 1}}'), { ok: true, value: 1, takesContext: true, context: { a: 1 } });
    assert.deepEqual(parseAnswer('{"ok": false, "stage": "import", "error": "e", "traceback": "t"}'), { ok: false, stage: 'import', error: 'e', traceback: 't' });
    assert.equal(parseAnswer(undefined), undefined);
  });

  test('nothing of these tests is left running', () => {
    assert.ok(sleepers.length > 0);
    for (const pid of sleepers) assert.equal(isAlive(pid), false, `pid ${pid}`);
  });
});
