// The runtime's orchestration with a fake executor: gate, validation,
// audit masking, write-back of fn tools, cancellation by run id.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Runtime, type AuditEntry } from '../../../src/core/runtime';
import { SessionStore } from '../../../src/core/session/store';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import type { ExecTool, FnTool, ToolDef } from '../../../src/core/catalog/types';
import type { RunContext, RunOutcome, ToolRuns } from '../../../src/core/tool-run/contract';
import type { Principal } from '../../../src/core/identity';
import { serverSecrets } from '../../../src/core/secrets';

const OWNER: Principal = { user: 'owner', email: 'o@example.com', groups: ['admin'], grants: [] };
const base = { description: 'd', groups: ['t'], env: {}, envPassthrough: false, limits: {}, stdin: false, source: { file: '/c.yaml', line: 1 }, catalogDir: '/' };
const execTool: ExecTool = {
  ...base, kind: 'exec', key: 't.run', name: 'run', command: 'x',
  params: [
    { name: 'word', type: 'str', required: true, hasDefault: false, hasOverride: false },
    { name: 'secret', type: 'str', required: false, hasDefault: false, hasOverride: true, override: 'hidden' },
  ],
};
const fnTool: FnTool = { ...base, kind: 'fn', key: 't.fn', name: 'fn', params: [], language: 'js', target: './m.mjs:f', takesContext: true };

class FakeExecutor implements ToolRuns {
  calls: Array<{ tool: ToolDef; params: Record<string, unknown>; ctx: RunContext }> = [];
  constructor(private readonly answer: (ctx: RunContext) => Promise<RunOutcome> | RunOutcome) {}
  async run(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome> {
    this.calls.push({ tool, params, ctx });
    return this.answer(ctx);
  }
}

async function setup(exec: ToolRuns, fn?: ToolRuns, gate?: () => string | undefined) {
  const store = await SessionStore.open({ storage: new MemoryStorage(), sweepIntervalMs: 0 });
  const audits: AuditEntry[] = [];
  const runtime = new Runtime({ store, executors: { exec, ...(fn ? { fn } : {}) }, onAudit: (a) => audits.push(a), ...(gate ? { gate } : {}) });
  runtime.catalog.set({ tools: new Map<string, ToolDef>([[execTool.key, execTool], [fnTool.key, fnTool]]), diagnostics: [], files: [] });
  return { store, runtime, audits };
}

describe('Runtime', () => {
  test('runs with validated params and the store snapshot; audit masks overrides', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'out', stderr: '', durationMs: 1 }));
    const { runtime, store, audits } = await setup(exec);
    await store.set('owner', 'k', 'target', 'db');
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.deepEqual(r, { isError: false, text: 'out', structured: { returncode: 0, stdout: 'out', stderr: '', duration_ms: 1, truncated: false } });
    assert.deepEqual(exec.calls[0].params, { word: 'w', secret: 'hidden' });
    assert.equal(exec.calls[0].ctx.store.target, 'db');
    assert.equal(exec.calls[0].ctx.store.user, 'owner');
    assert.deepEqual(audits[0].params, { word: 'w', secret: '***' });
    assert.equal(audits[0].code, 0);
  });

  test('params may come as a JSON string; bad params never reach the executor', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'ok', stderr: '', durationMs: 1 }));
    const { runtime } = await setup(exec);
    assert.equal((await runtime.calls.execute(OWNER, 'k', 't.run', '{"word":"w"}')).isError, false);
    for (const bad of [{}, { word: 'w', secret: 'mine' }, '[1]', 42]) {
      assert.equal((await runtime.calls.execute(OWNER, 'k', 't.run', bad)).isError, true, JSON.stringify(bad));
    }
    assert.equal(exec.calls.length, 1);
  });

  test('a closed gate refuses every tool and hides them', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: '', stderr: '', durationMs: 1 }));
    const { runtime } = await setup(exec, undefined, () => 'workspace not trusted');
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.equal(r.isError, true);
    assert.equal(r.text, 'workspace not trusted');
    // Nothing ran: the run's shape all the same, code -1 and the reason as stderr.
    assert.deepEqual(r.structured, { returncode: -1, stdout: '', stderr: 'workspace not trusted', duration_ms: 0, truncated: false });
    assert.deepEqual(runtime.catalog.accessibleTools(OWNER), []);
    assert.equal(exec.calls.length, 0);
  });

  test('fn tools: the returned context is written back relative to the snapshot', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: '', stderr: '', durationMs: 1 }));
    const fn = new FakeExecutor((ctx) => ({
      code: 0, stdout: '"done"', stderr: '', durationMs: 1, value: 'done',
      contextOut: { ...ctx.store, cursor: 7, user: 'mallory' },
    }));
    const { runtime, store } = await setup(exec, fn);
    await store.set('owner', 'k', 'keep', 1);
    const r = await runtime.calls.execute(OWNER, 'k', 't.fn', {});
    assert.equal(r.text, 'done');
    assert.equal(r.structured?.stdout, 'done', 'structuredContent carries the answer as the text does');
    assert.deepEqual(await store.variables('owner', 'k'), { keep: 1, cursor: 7 });
  });

  test('failures carry code, stdout and stderr', async () => {
    const exec = new FakeExecutor(() => ({ code: 2, stdout: 'o', stderr: 'e', durationMs: 1 }));
    const { runtime } = await setup(exec);
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.equal(r.isError, true);
    assert.deepEqual(r.structured, { returncode: 2, stdout: 'o', stderr: 'e', duration_ms: 1, truncated: false });
  });

  test('a run in a terminal leaves stderr out of structuredContent; a cut output says truncated', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'all', stderr: '', durationMs: 3, terminal: true, truncated: true }));
    const { runtime } = await setup(exec);
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.deepEqual(r.structured, { returncode: 0, stdout: 'all', duration_ms: 3, truncated: true });
  });

  test('each call can add its own run-event sink to the host\'s', async () => {
    const seen: string[] = [];
    const exec = new FakeExecutor((ctx) => {
      ctx.events.emit({ type: 'output', runId: ctx.runId, stream: 'stdout', data: 'x' });
      return { code: 0, stdout: 'x', stderr: '', durationMs: 1 };
    });
    const { runtime } = await setup(exec);
    await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' }, { events: { emit: (e) => seen.push(e.type) } });
    await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.deepEqual(seen, ['output'], 'only the call that brought the sink sees its events');
  });

  test('cancelRun aborts the signal of that run only', async () => {
    let seen: RunContext | undefined;
    const exec = new FakeExecutor(
      (ctx) =>
        new Promise<RunOutcome>((resolve) => {
          seen = ctx;
          ctx.signal?.addEventListener('abort', () => resolve({ code: -1, stdout: '', stderr: 'cancelled', durationMs: 1 }));
        }),
    );
    const { runtime } = await setup(exec);
    const pending = runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    while (!seen) await new Promise((r) => setImmediate(r));
    assert.equal(runtime.running.cancel('no-such-run'), false);
    assert.equal(runtime.running.cancel(seen.runId), true);
    const r = await pending;
    assert.equal(r.isError, true);
    assert.match(r.text, /stopped with return code -1/);
  });

  test('a failing store gives audited error results, never an exception', async () => {
    const storage = new MemoryStorage();
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    const audits: AuditEntry[] = [];
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'ran', stderr: '', durationMs: 1 }));
    const runtime = new Runtime({ store, executors: { exec }, onAudit: (a) => audits.push(a) });
    runtime.catalog.set({ tools: new Map<string, ToolDef>([[execTool.key, execTool]]), diagnostics: [], files: [] });
    storage.get = () => Promise.reject(new Error('EIO (injected)'));
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.equal(r.isError, true);
    assert.match(r.text, /did not run: .*EIO/);
    assert.equal(exec.calls.length, 0);
    assert.equal(audits.length, 1);
    assert.equal(audits[0].code, 'error');
    const g = await runtime.calls.getSession(OWNER, 'k', 'x');
    assert.equal(g.isError, true);
    assert.match(g.text, /EIO/);
  });

  test("a write-back that cannot be saved still returns the tool's answer, with a note", async () => {
    const storage = new MemoryStorage();
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    const exec = new FakeExecutor(() => ({ code: 0, stdout: '', stderr: '', durationMs: 1 }));
    const realChange = storage.change.bind(storage);
    const fn = new FakeExecutor((ctx) => {
      storage.change = () => Promise.reject(new Error('disk full (injected)'));
      return { code: 0, stdout: '"v"', stderr: '', durationMs: 1, value: 'v', contextOut: { ...ctx.store, cursor: 1 } };
    });
    const runtime = new Runtime({ store, executors: { exec, fn } });
    runtime.catalog.set({ tools: new Map<string, ToolDef>([[fnTool.key, fnTool]]), diagnostics: [], files: [] });
    const r = await runtime.calls.execute(OWNER, 'k', 't.fn', {});
    assert.equal(r.isError, false);
    assert.match(r.text, /^v\n\[mcc: the tool's session changes were not saved: .*disk full/);
    storage.change = realChange;
    assert.deepEqual(await store.variables('owner', 'k'), {});
  });

  test('a write-back over a key another call changed meanwhile is refused; the answer says so, naming the key', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: '', stderr: '', durationMs: 1 }));
    const box: { store?: SessionStore } = {};
    const fn = new FakeExecutor(async (ctx) => {
      // Another caller (another server on the same store, or set_session) writes while the tool runs.
      await box.store!.set('owner', 'k', 'counter', 100);
      return { code: 0, stdout: '"v"', stderr: '', durationMs: 1, value: 'v', contextOut: { ...ctx.store, counter: 1, other: 'x' } };
    });
    const opened = await setup(exec, fn);
    box.store = opened.store;
    const r = await opened.runtime.calls.execute(OWNER, 'k', 't.fn', {});
    assert.equal(r.isError, false);
    assert.match(r.text, /^v\n\[mcc: Write-back refused: 'counter' was changed by another call since this tool read the session, so none of its session changes were written/);
    assert.deepEqual(await opened.store.variables('owner', 'k'), { counter: 100 });
  });

  test('calls of a context tool run one at a time per bucket; other buckets and other tools are not held up', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'exec', stderr: '', durationMs: 1 }));
    let running = 0;
    let most = 0;
    const fn = new FakeExecutor(async (ctx) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 1));
      running--;
      const n = typeof ctx.store.n === 'number' ? ctx.store.n : 0;
      return { code: 0, stdout: '', stderr: '', durationMs: 1, value: n + 1, contextOut: { ...ctx.store, n: n + 1 } };
    });
    const { runtime, store } = await setup(exec, fn);
    const results = await Promise.all([
      ...Array.from({ length: 200 }, () => runtime.calls.execute(OWNER, 'k', 't.fn', {})),
      ...Array.from({ length: 20 }, () => runtime.calls.execute(OWNER, 'k2', 't.fn', {})),
      runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' }),
    ]);
    assert.ok(results.every((r) => !r.isError));
    assert.equal((await store.variables('owner', 'k')).n, 200);
    assert.equal((await store.variables('owner', 'k2')).n, 20);
    assert.equal(most, 2, 'one call per bucket at a time, the two buckets side by side');
  });
  test('params nested deeper than 64 levels are refused before anything runs, and audited once', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'ran', stderr: '', durationMs: 1 }));
    const { runtime, audits } = await setup(exec);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: deep });
    assert.equal(r.isError, true);
    assert.match(r.text, /'word' is nested deeper than 64 levels; nothing was run/);
    assert.equal(exec.calls.length, 0);
    assert.equal(audits.length, 1);
    assert.equal(audits[0].code, 'error');
    assert.ok(JSON.stringify(audits[0].params).length < 200, 'the audited params are clipped');
    // The params object is level 1: 63 nested lists in a value reach level 64, the limit.
    let atLimit: unknown = 1;
    for (let i = 0; i < 63; i++) atLimit = [atLimit];
    assert.doesNotMatch((await runtime.calls.execute(OWNER, 'k', 't.run', { word: atLimit })).text, /nested deeper/);
    assert.match((await runtime.calls.execute(OWNER, 'k', 't.run', { word: [atLimit] })).text, /'word' is nested deeper than 64 levels/);
    assert.equal(audits.length, 3);
    assert.equal(exec.calls.length, 0);
  });

  test('exactly one audit line whatever happens: an executor that throws, an audit sink that throws', async () => {
    const exec = new FakeExecutor(() => {
      throw new Error('boom (injected)');
    });
    const { runtime, audits } = await setup(exec);
    const r = await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.equal(r.isError, true);
    assert.equal(audits.length, 1);
    const store = await SessionStore.open({ storage: new MemoryStorage(), sweepIntervalMs: 0 });
    const throwing = new Runtime({ store, executors: { exec: new FakeExecutor(() => ({ code: 0, stdout: 'ok', stderr: '', durationMs: 1 })) }, onAudit: () => { throw new Error('sink down'); } });
    throwing.catalog.set({ tools: new Map<string, ToolDef>([[execTool.key, execTool]]), diagnostics: [], files: [] });
    const answered = await throwing.calls.execute(OWNER, 'k', 't.run', { word: 'w' });
    assert.deepEqual({ isError: answered.isError, text: answered.text }, { isError: false, text: 'ok' });
    assert.equal(answered.structured?.returncode, 0);
  });

  test('search, describe_tools, get_session and set_session are audited by the runtime with the same fields', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'ok', stderr: '', durationMs: 1 }));
    const { runtime, audits } = await setup(exec);
    const call = { clientName: 'agent' };
    await runtime.calls.search(OWNER, 'k', 'run', {}, call);
    await runtime.calls.describeTools(OWNER, 'k', ['t'], call);
    await runtime.calls.setSession(OWNER, 'k', 'x', 'secret-value', call);
    await runtime.calls.getSession(OWNER, 'k', 'x', call);
    await runtime.calls.setSession(OWNER, 'k', 'Bad Name', 1, call);
    await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' }, call);
    assert.deepEqual(
      audits.map((a) => [a.toolKey, a.params, a.code, a.client, a.user, a.bucketKey]),
      [
        ['search', { query: 'run' }, 0, 'agent', 'owner', 'k'],
        ['describe_tools', { groups: ['t'] }, 0, 'agent', 'owner', 'k'],
        ['set_session', { name: 'x' }, 0, 'agent', 'owner', 'k'],
        ['get_session', { name: 'x' }, 0, 'agent', 'owner', 'k'],
        ['set_session', { name: 'Bad Name' }, 'error', 'agent', 'owner', 'k'],
        ['t.run', { word: 'w', secret: '***' }, 0, 'agent', 'owner', 'k'],
      ],
    );
    assert.match(audits[4].error ?? '', /Invalid variable name/);
    assert.doesNotMatch(JSON.stringify(audits), /secret-value/);
  });

  test('a client name is bounded to 200 characters before it is stored or audited', async () => {
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'ok', stderr: '', durationMs: 1 }));
    const { runtime, store, audits } = await setup(exec);
    const huge = 'n'.repeat(3_000_000);
    await runtime.calls.setSession(OWNER, 'k', 'x', 1, { clientName: huge });
    await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'w' }, { clientName: huge });
    const stored = (await store.list()).find((b) => b.sessionKey === 'k')?.clientName ?? '';
    assert.equal(stored.length, 200);
    assert.ok(stored.endsWith('…'));
    assert.ok(audits.every((a) => a.client?.length === 200));
  });

  test('audit entries never carry a secret value of the server', async () => {
    const store = await SessionStore.open({ storage: new MemoryStorage(), sweepIntervalMs: 0 });
    const audits: AuditEntry[] = [];
    const exec = new FakeExecutor(() => ({ code: 0, stdout: 'ok', stderr: '', durationMs: 1 }));
    const runtime = new Runtime({ store, executors: { exec }, onAudit: (a) => audits.push(a), secrets: serverSecrets({ ownerToken: 'owner-token-0123456789' }) });
    runtime.catalog.set({ tools: new Map<string, ToolDef>([[execTool.key, execTool]]), diagnostics: [], files: [] });
    await runtime.calls.execute(OWNER, 'k', 't.run', { word: 'owner-token-0123456789' });
    await runtime.calls.execute(OWNER, 'k', 'owner-token-0123456789', {});
    assert.doesNotMatch(JSON.stringify(audits), /owner-token-0123456789/);
    assert.deepEqual(audits[0].params, { word: '***', secret: '***' });
  });
});
