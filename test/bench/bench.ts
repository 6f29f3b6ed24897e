// `npm run bench`: calls per second of runtime paths, measured side by side
// in one process. Each case is warmed up, then the cases take turns in
// rounds so that a noisy neighbour slows all of them alike.
//
// Add a case: push a BenchCase onto CASES (and a pair onto RATIOS to have
// two cases compared). Environment: BENCH_FILTER=<substring> runs only the
// matching cases, BENCH_SCALE=<factor> multiplies the number of calls.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ExecTool, FnTool } from '../../src/core/catalog/types';
import { FnExecutor } from '../../src/core/fn/fn-executor';
import { buildToolEnv, serverEnv } from '../../src/core/runner/env';
import { ExecExecutor } from '../../src/core/runner/exec-executor';
import { RunKit } from '../../src/core/runner/run-kit';
import { nullEventSink, type CallContext, type ToolExecutor } from '../../src/core/runner/types';

export interface BenchCase {
  name: string;
  /** Measured calls (before BENCH_SCALE). */
  calls: number;
  warmup: number;
  setup?(): Promise<void>;
  /** One call; rejects (or throws) when the call did not succeed. */
  once(): Promise<void>;
  teardown?(): Promise<void>;
}

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fn');
const STORE = { user: 'bench', email: '', groups: ['admin'], tools: [] as string[] };

function ctx(): CallContext {
  return { runId: randomUUID(), caller: { user: 'bench', sessionKey: 'bench' }, store: STORE, events: nullEventSink };
}

// What every bench tool has, whatever its kind.
const TOOL_BASE = {
  description: '',
  groups: ['bench'],
  params: [],
  env: {},
  envPassthrough: false,
  limits: {},
  stdin: false,
  source: { file: join(FIXTURES, 'bench.yaml'), line: 1 },
};

function fnTool(over: Partial<FnTool> & Pick<FnTool, 'language' | 'target' | 'takesContext'>): FnTool {
  return { ...TOOL_BASE, kind: 'fn', key: 'bench.trivial', name: 'trivial', catalogDir: join(FIXTURES, 'py'), ...over };
}

const fn = new FnExecutor({ poolSize: 2 });
// The run kit (transform, cache_ttl) as the runtime puts it around every executor.
const kept = new RunKit().wrap(fn);

async function runFn(tool: FnTool, executor: ToolExecutor = fn): Promise<void> {
  const r = await executor.run(tool, {}, ctx());
  if (r.code !== 0 || r.value !== 'pong') throw new Error(`${tool.target} failed (code ${r.code}): ${r.stderr}`);
}

const jsTrivial = fnTool({ language: 'js', target: './trivial.mjs:ping', modulePath: join(FIXTURES, 'js', 'trivial.mjs'), exportName: 'ping', takesContext: true });
const pyTrivial = fnTool({ language: 'python', target: 'fnpkg.tools:trivial', python: 'python3', takesContext: false });
// A Unix limit keeps a tool off the warm processes: one interpreter per call.
const pyOneShot = fnTool({ language: 'python', target: 'fnpkg.tools:trivial', python: 'python3', takesContext: false, limits: { nofile: 1024 } });
const jsCached = { ...jsTrivial, key: 'bench.cached', cacheTtl: 3600 };

// Stores for the environment cases: a usual one, a bucket at the 1 MiB
// limit (its JSON goes to MCC_CTX_FILE), and a caller of 5,000 tools.
const FULL_STORE: Record<string, unknown> = { ...STORE };
for (let i = 0; i < 16; i++) FULL_STORE[`v${i}`] = 'x'.repeat(65000);
const MANY_TOOLS_STORE = { ...STORE, tools: Array.from({ length: 5000 }, (_, i) => `group_${i % 50}.tool_${i}`) };
const SERVER = serverEnv();
const echoTool: ExecTool = { ...TOOL_BASE, kind: 'exec', key: 'bench.true', name: 'true', catalogDir: FIXTURES, command: 'true' };
const exec = new ExecExecutor({ defaultMode: 'pipe' });

function envOnce(store: Record<string, unknown>): Promise<void> {
  const built = buildToolEnv(echoTool, store, SERVER);
  built.dispose();
  return Promise.resolve();
}

async function runExec(store: Record<string, unknown>): Promise<void> {
  const r = await exec.run(echoTool, {}, { ...ctx(), store });
  if (r.code !== 0) throw new Error(`exec failed (code ${r.code}): ${r.stderr}`);
}

export const CASES: BenchCase[] = [
  { name: 'tool env, usual store', calls: 5000, warmup: 200, once: () => envOnce(STORE) },
  { name: 'tool env, 1 MiB store (file)', calls: 500, warmup: 20, once: () => envOnce(FULL_STORE) },
  { name: 'tool env, 5,000 tool keys (file)', calls: 1000, warmup: 50, once: () => envOnce(MANY_TOOLS_STORE) },
  { name: 'exec true (pipe), usual store', calls: 200, warmup: 10, once: () => runExec(STORE) },
  { name: 'exec true (pipe), 1 MiB store', calls: 200, warmup: 10, once: () => runExec(FULL_STORE) },
  { name: 'fn js trivial (worker)', calls: 2000, warmup: 200, once: () => runFn(jsTrivial) },
  { name: 'fn python trivial (warm process)', calls: 1000, warmup: 50, once: () => runFn(pyTrivial) },
  { name: 'fn python trivial (one-shot, limits)', calls: 30, warmup: 3, once: () => runFn(pyOneShot) },
  { name: 'fn js trivial (worker, through the run kit)', calls: 2000, warmup: 200, once: () => runFn(jsTrivial, kept) },
  { name: 'fn js trivial (cache_ttl hit)', calls: 2000, warmup: 10, once: () => runFn(jsCached, kept) },
];

/** [numerator, denominator]: "numerator is N x faster than denominator". */
export const RATIOS: Array<[string, string]> = [
  ['tool env, usual store', 'tool env, 1 MiB store (file)'],
  ['exec true (pipe), usual store', 'exec true (pipe), 1 MiB store'],
  ['fn js trivial (worker)', 'fn python trivial (warm process)'],
  ['fn python trivial (warm process)', 'fn python trivial (one-shot, limits)'],
  // The kit costs (next to) nothing when a tool has no transform and no cache...
  ['fn js trivial (worker, through the run kit)', 'fn js trivial (worker)'],
  // ...and a cache hit answers without a worker.
  ['fn js trivial (cache_ttl hit)', 'fn js trivial (worker)'],
];

interface Measured {
  name: string;
  samples: number[];
}

const ROUNDS = 5;

async function main(): Promise<void> {
  const filter = process.env.BENCH_FILTER;
  const scale = Number(process.env.BENCH_SCALE ?? '1') || 1;
  const cases = CASES.filter((c) => !filter || c.name.includes(filter));
  const measured = new Map<string, Measured>(cases.map((c) => [c.name, { name: c.name, samples: [] }]));
  try {
    for (const c of cases) await c.setup?.();
    for (const c of cases) for (let i = 0; i < c.warmup; i++) await c.once();
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const m = measured.get(c.name) as Measured;
        const n = Math.max(1, Math.round((c.calls * scale) / ROUNDS));
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          await c.once();
          m.samples.push(performance.now() - t);
        }
      }
    }
  } finally {
    for (const c of cases) await c.teardown?.();
    await Promise.all([fn.dispose(), exec.dispose()]);
  }
  report([...measured.values()]);
}

function report(all: Measured[]): void {
  const rows = all.map((m) => {
    const sorted = [...m.samples].sort((a, b) => a - b);
    const total = m.samples.reduce((a, b) => a + b, 0);
    const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    return { name: m.name, calls: m.samples.length, perSec: (m.samples.length / total) * 1000, mean: total / m.samples.length, p50: q(0.5), p95: q(0.95) };
  });
  const header = ['case', 'calls', 'calls/s', 'mean ms', 'p50 ms', 'p95 ms'];
  const table = rows.map((r) => [r.name, String(r.calls), r.perSec.toFixed(1), r.mean.toFixed(3), r.p50.toFixed(3), r.p95.toFixed(3)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table) console.log(line(row));
  const byName = new Map(rows.map((r) => [r.name, r]));
  for (const [a, b] of RATIOS) {
    const ra = byName.get(a);
    const rb = byName.get(b);
    if (ra && rb) console.log(`\nratio: ${a} / ${b} = ${(ra.perSec / rb.perSec).toFixed(1)}x calls per second`);
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exitCode = 1;
  });
}
