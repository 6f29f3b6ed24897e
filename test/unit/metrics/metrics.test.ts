// The recording of every metric, read back from real prom-client registries
// as exposition text: call counts by tool, result and kind of caller, with
// bounded labels; durations; the timed store backend; the bucket count;
// the gauges and counters of a runtime; the listener's answers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { CallMetrics } from '../../../src/core/metrics/call-metrics';
import { StoreMetrics } from '../../../src/core/metrics/store-metrics';
import { BucketCount } from '../../../src/core/metrics/bucket-count';
import { createServerMetrics } from '../../../src/core/metrics/server-metrics';
import { startMetricsListener } from '../../../src/core/metrics/metrics-listener';
import { principalKind, resultLabel, toolLabel, UNKNOWN_TOOL } from '../../../src/core/metrics/metric-labels';
import type { FinishedCall } from '../../../src/core/call/audit-trail';
import { ANONYMOUS, type Principal } from '../../../src/core/identity';
import { Runtime } from '../../../src/core/runtime';
import { SessionStore } from '../../../src/core/session/store';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import type { SessionStorage } from '../../../src/core/session/types';
import { Sandbox } from '../../../src/core/sandbox/sandbox';
import type { ExecTool, ToolDef } from '../../../src/core/catalog/types';
import type { RunOutcome, ToolRuns } from '../../../src/core/tool-run/contract';
import { samples, value } from '../../support/exposition';

const OWNER: Principal = { user: 'owner', email: '', groups: ['admin'], grants: [] };
const ALICE: Principal = { user: 'alice', email: '', groups: ['t'], grants: [] };
const base = { description: 'd', groups: ['t'], env: {}, envPassthrough: false, limits: {}, stdin: false, source: { file: '/c.yaml', line: 1 }, catalogDir: '/' };
const tool = (name: string): ExecTool => ({ ...base, kind: 'exec', key: `t.${name}`, name, command: 'x', params: [] });

function finished(what: string, code: number | 'error', principal: Principal = OWNER): FinishedCall {
  return { principal, bucketKey: 'k', what, params: { secret: 'p4ssw0rd' }, started: 0, result: { isError: code !== 0, text: '' }, code };
}

describe('metric labels', () => {
  test('tool keys: catalog tools and the MCP surfaces keep their name, anything else is one label', () => {
    const known = (k: string): boolean => k === 't.run';
    assert.equal(toolLabel('t.run', known), 't.run');
    for (const s of ['search', 'describe_tools', 'execute', 'get_session', 'set_session', 'prompt:debug_error', 'resource:mcc://session']) assert.equal(toolLabel(s, known), s);
    for (const s of ['t.nope', 'x'.repeat(5000), 'prompt:made-up', '']) assert.equal(toolLabel(s, known), UNKNOWN_TOOL);
  });

  test('results and kinds of caller', () => {
    assert.deepEqual([0, 3, -1, 'error' as const].map(resultLabel), ['ok', 'tool_error', 'tool_error', 'refused']);
    assert.equal(principalKind(OWNER, 'owner'), 'owner');
    assert.equal(principalKind(ALICE, 'owner'), 'user');
    assert.equal(principalKind(ANONYMOUS, 'owner'), 'anonymous');
  });
});

describe('CallMetrics', () => {
  test('counts by tool, result and kind of caller; durations by tool and result; no user name, no param', async () => {
    const registry = new Registry();
    const m = new CallMetrics(registry, { ownerUser: 'owner', isCatalogTool: (k) => k === 't.run' });
    m.record(finished('t.run', 0), 20);
    m.record(finished('t.run', 0), 3000);
    m.record(finished('t.run', 2, ALICE), 5);
    m.record(finished('t.invented-by-caller', 'error', ANONYMOUS), 1);
    m.record(finished('search', 0, ALICE), 1);
    const text = await registry.metrics();
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.run', result: 'ok', principal: 'owner' }), 2);
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.run', result: 'tool_error', principal: 'user' }), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: UNKNOWN_TOOL, result: 'refused', principal: 'anonymous' }), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: 'search', result: 'ok', principal: 'user' }), 1);
    assert.equal(samples(text, 'mcc_calls_total').length, 4);
    assert.equal(value(text, 'mcc_call_duration_seconds_count', { tool: 't.run', result: 'ok' }), 2);
    assert.equal(value(text, 'mcc_call_duration_seconds_sum', { tool: 't.run', result: 'ok' }), 3.02);
    assert.equal(value(text, 'mcc_call_duration_seconds_bucket', { tool: 't.run', result: 'ok', le: '0.025' }), 1);
    assert.equal(value(text, 'mcc_call_duration_seconds_bucket', { tool: 't.run', result: 'ok', le: '5' }), 2);
    assert.doesNotMatch(text, /alice|p4ssw0rd|invented/);
  });

  test('the user label only when asked', async () => {
    const registry = new Registry();
    const m = new CallMetrics(registry, { ownerUser: 'owner', isCatalogTool: () => true, userLabel: true });
    m.record(finished('t.run', 0, ALICE), 1);
    m.record(finished('t.run', 0, ANONYMOUS), 1);
    const text = await registry.metrics();
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.run', result: 'ok', principal: 'user', user: 'alice' }), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.run', result: 'ok', principal: 'anonymous', user: 'anonymous' }), 1);
  });
});

describe('StoreMetrics', () => {
  test('the timed backend answers as the backend does, and each operation is timed', async () => {
    const registry = new Registry();
    const timed = new StoreMetrics(registry).wrap(new MemoryStorage());
    const store = await SessionStore.open({ storage: timed, sweepIntervalMs: 0 });
    await store.set('u', 'k', 'a', 1);
    assert.deepEqual(await store.variables('u', 'k'), { a: 1 });
    assert.equal((await store.list()).length, 1);
    assert.equal(timed.description, new MemoryStorage().description);
    const text = await registry.metrics();
    assert.equal(value(text, 'mcc_store_operation_duration_seconds_count', { operation: 'change' }), 1);
    assert.ok((value(text, 'mcc_store_operation_duration_seconds_count', { operation: 'get' }) ?? 0) >= 1);
    assert.equal(value(text, 'mcc_store_operation_duration_seconds_count', { operation: 'list' }), 1);
    assert.equal(samples(text, 'mcc_store_errors_total').length, 0);
    await store.close();
  });

  test('a failing operation is counted, timed and passed on unchanged', async () => {
    const registry = new Registry();
    const down = new Error('connection refused');
    const failing: SessionStorage = Object.assign(new MemoryStorage(), { get: () => Promise.reject(down) });
    const timed = new StoreMetrics(registry).wrap(failing);
    await assert.rejects(timed.get('x'), (e) => e === down);
    await assert.rejects(timed.get('y'), (e) => e === down);
    const text = await registry.metrics();
    assert.equal(value(text, 'mcc_store_errors_total', { operation: 'get' }), 2);
    assert.equal(value(text, 'mcc_store_operation_duration_seconds_count', { operation: 'get' }), 2);
  });
});

describe('BucketCount', () => {
  test('lists the store at most every 30 s, one listing at a time; a failure keeps the last count', async () => {
    let now = 0;
    let lists = 0;
    let fail = false;
    let buckets = 2;
    const store = { list: () => (lists++, fail ? Promise.reject(new Error('down')) : Promise.resolve(new Array(buckets) as never[])) };
    const count = new BucketCount(() => store, () => now);
    assert.deepEqual(await Promise.all([count.count(), count.count()]), [2, 2]);
    buckets = 5;
    now = 29_999;
    assert.equal(await count.count(), 2);
    assert.equal(lists, 1);
    now = 30_000;
    assert.equal(await count.count(), 5);
    fail = true;
    now = 70_000;
    assert.equal(await count.count(), 5);
    assert.equal(lists, 3);
  });
});

class Gate implements ToolRuns {
  open!: () => void;
  // Declared before `started`, whose initializer sets it (fields are defined in order).
  private begun: () => void = () => undefined;
  readonly started = new Promise<void>((r) => (this.begun = r));
  run(t: ToolDef): Promise<RunOutcome> {
    if (t.key !== 't.slow') return Promise.resolve({ code: t.key === 't.fails' ? 3 : 0, stdout: '', stderr: '', durationMs: 1 });
    this.begun();
    return new Promise((r) => (this.open = () => r({ code: 0, stdout: '', stderr: '', durationMs: 1 })));
  }
}

async function runtimeWithMetrics(opts: { userLabel?: boolean } = {}) {
  const metrics = createServerMetrics({ ownerUser: 'owner', ...opts });
  const store = await SessionStore.open({ storage: metrics.timeStorage(new MemoryStorage()), sweepIntervalMs: 0 });
  const exec = new Gate();
  const sandbox = new Sandbox({ probe: { path: '/nonexistent' } });
  const runtime = new Runtime({ store, executors: { exec }, sandbox });
  let sessions = 0;
  const attached = metrics.attach({ runtime, store, mcpSessions: () => sessions });
  const tools = [tool('run'), tool('fails'), tool('slow')];
  runtime.catalog.set({ tools: new Map(tools.map((t) => [t.key, t])), diagnostics: [{ severity: 'error', file: '/c.yaml', line: 9, message: 'x' }], files: [] });
  return { metrics, runtime, store, exec, sandbox, attached, setSessions: (n: number) => (sessions = n) };
}

describe('a runtime with metrics', () => {
  test('calls, running calls, sessions, buckets, catalog loads and sandbox refusals; process metrics beside them', async () => {
    const s = await runtimeWithMetrics();
    await s.runtime.calls.execute(OWNER, 'k', 't.run', {});
    await s.runtime.calls.execute(OWNER, 'k', 't.fails', {});
    await s.runtime.calls.execute(ALICE, 'k', 't.unknown-key', {});
    await s.runtime.calls.setSession(OWNER, 'k', 'v', 1);
    const slow = s.runtime.calls.execute(OWNER, 'k', 't.slow', {});
    await s.exec.started;
    s.setSessions(3);
    assert.throws(() => s.sandbox.prepare({ ...tool('run'), sandbox: 'default' }, { env: {} }), /runs only in a sandbox/);
    let text = await s.metrics.text();
    assert.equal(value(text, 'mcc_running_calls'), 1);
    assert.equal(value(text, 'mcc_mcp_sessions'), 3);
    assert.equal(value(text, 'mcc_buckets'), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.run', result: 'ok', principal: 'owner' }), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.fails', result: 'tool_error', principal: 'owner' }), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: UNKNOWN_TOOL, result: 'refused', principal: 'user' }), 1);
    assert.equal(value(text, 'mcc_calls_total', { tool: 'set_session', result: 'ok', principal: 'owner' }), 1);
    assert.equal(value(text, 'mcc_sandbox_refusals_total', { tool: 't.run' }), 1);
    assert.equal(value(text, 'mcc_catalog_loads_total'), 1);
    assert.equal(value(text, 'mcc_catalog_tools'), 3);
    assert.equal(value(text, 'mcc_catalog_errors'), 1);
    assert.equal(value(text, 'mcc_build_info', { version: 'unknown' }), 1);
    s.metrics.httpResponse(401);
    s.metrics.httpResponse(401);
    s.metrics.httpResponse(200);
    const after = await s.metrics.text();
    assert.equal(value(after, 'mcc_http_responses_total', { code: '401' }), 2);
    assert.equal(value(after, 'mcc_http_responses_total', { code: '200' }), 1);
    assert.ok((value(text, 'mcc_store_operation_duration_seconds_count', { operation: 'change' }) ?? 0) >= 1);
    assert.ok(samples(text, 'process_cpu_user_seconds_total').length === 1, 'process metrics are there');
    assert.ok(samples(text, 'nodejs_eventloop_lag_seconds').length === 1);
    s.exec.open();
    await slow;
    s.runtime.catalog.set({ tools: new Map(), diagnostics: [], files: [] });
    text = await s.metrics.text();
    assert.equal(value(text, 'mcc_running_calls'), 0);
    assert.equal(value(text, 'mcc_calls_total', { tool: 't.slow', result: 'ok', principal: 'owner' }), 1);
    assert.equal(value(text, 'mcc_catalog_loads_total'), 2);
    assert.equal(value(text, 'mcc_catalog_tools'), 0);
    s.attached.dispose();
    await s.runtime.calls.execute(OWNER, 'k', 't.run', {});
    assert.equal(value(await s.metrics.text(), 'mcc_calls_total', { tool: UNKNOWN_TOOL, result: 'refused', principal: 'owner' }), undefined, 'nothing counted once detached');
    await s.store.close();
  });

  test('two servers in one process count apart', async () => {
    const a = await runtimeWithMetrics();
    const b = await runtimeWithMetrics({ userLabel: true });
    await a.runtime.calls.execute(OWNER, 'k', 't.run', {});
    await a.runtime.calls.execute(OWNER, 'k', 't.run', {});
    await b.runtime.calls.execute(ALICE, 'k', 't.run', {});
    assert.equal(value(await a.metrics.text(), 'mcc_calls_total', { tool: 't.run', result: 'ok', principal: 'owner' }), 2);
    const textB = await b.metrics.text();
    assert.equal(value(textB, 'mcc_calls_total', { tool: 't.run', result: 'ok', principal: 'user', user: 'alice' }), 1);
    assert.equal(samples(textB, 'mcc_calls_total').length, 1);
    await Promise.all([a.store.close(), b.store.close()]);
  });
});

describe('the metrics listener', () => {
  test('GET and HEAD /metrics answer the text; other paths 404, other methods 405', async () => {
    const metrics = { text: () => Promise.resolve('mcc_x 1\n'), contentType: 'text/plain; version=0.0.4; charset=utf-8' };
    const l = await startMetricsListener(metrics, '127.0.0.1', 0);
    try {
      assert.equal(l.url, `http://127.0.0.1:${l.port}/metrics`);
      const r = await fetch(l.url);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), metrics.contentType);
      assert.equal(await r.text(), 'mcc_x 1\n');
      assert.equal((await fetch(`${l.url}?x=1`)).status, 200);
      const head = await fetch(l.url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
      for (const path of ['/', '/mcp', '/metricsx', '/healthz']) assert.equal((await fetch(`http://127.0.0.1:${l.port}${path}`)).status, 404, path);
      const post = await fetch(l.url, { method: 'POST', body: 'x' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
    } finally {
      await l.close();
    }
  });

  test('a failing collection is a 500, and the listener goes on', async () => {
    let fail = true;
    const l = await startMetricsListener({ text: () => (fail ? Promise.reject(new Error('boom')) : Promise.resolve('ok 1\n')), contentType: 'text/plain' }, '127.0.0.1', 0);
    try {
      assert.equal((await fetch(l.url)).status, 500);
      fail = false;
      assert.equal(await (await fetch(l.url)).text(), 'ok 1\n');
    } finally {
      await l.close();
    }
  });
});
