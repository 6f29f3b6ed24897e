// The bench harness: groups of cases measured side by side in one process.
// Every case is warmed up, then the cases of all groups take turns in rounds
// so that a noisy neighbour slows all of them alike. Ratios compare two cases
// of the same run; figures are measured by a group itself (bytes, throughput).
// The report is a table on stdout and the same figures in bench-results.json.
import { writeFileSync } from 'node:fs';

export interface BenchCase {
  name: string;
  /** Measured calls (before BENCH_SCALE). */
  calls: number;
  warmup: number;
  /** One call; rejects (or throws) when the call did not succeed. */
  once(): Promise<void>;
}

/** a against b: 'faster' prints calls/s of a over b; 'slower' prints a's time per call over b's. */
export interface Ratio {
  a: string;
  b: string;
  as: 'faster' | 'slower';
  /** What the target judges: the means (default) or the medians. */
  by?: 'mean' | 'p50';
  /** The issue's target, e.g. { max: 1.15 } for "at most 1.15x the time". */
  target?: { max?: number; min?: number };
}

export interface Figure {
  name: string;
  value: string;
  /** The number behind `value`, for bench-results.json. */
  number?: number;
  /** How the value compares with its target, when it has one. */
  verdict?: string;
}

export interface BenchGroup {
  name: string;
  cases: BenchCase[];
  /** Left out of `--quick` runs (setups that alone take long). */
  slow?: boolean;
  ratios?: Ratio[];
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** Measured after the rounds, with the group's own method. */
  figures?(): Promise<Figure[]>;
}

export interface Row {
  name: string;
  calls: number;
  perSec: number;
  mean: number;
  p50: number;
  p95: number;
}

export interface BenchRunOptions {
  /** Fewer rounds and calls, no slow groups: the whole run in under a minute. */
  quick?: boolean;
  /** Where the JSON report goes (default ./bench-results.json). */
  resultsFile?: string;
}

interface RatioResult {
  a: string;
  b: string;
  value: number;
  byMedians: number;
  unit: string;
  verdict?: string;
}

/** Measures the groups (BENCH_FILTER: a substring of case or group names; BENCH_SCALE: call multiplier) and prints the report. */
export async function runBench(all: BenchGroup[], env: NodeJS.ProcessEnv = process.env, o: BenchRunOptions = {}): Promise<void> {
  const filter = env.BENCH_FILTER;
  const rounds = o.quick ? 3 : 5;
  const scale = (Number(env.BENCH_SCALE ?? '1') || 1) * (o.quick ? 0.2 : 1);
  const groups = all
    .filter((g) => !(o.quick && g.slow))
    .map((g) => ({ ...g, cases: filter && !g.name.includes(filter) ? g.cases.filter((c) => c.name.includes(filter)) : g.cases }))
    .filter((g) => g.cases.length > 0 || (g.figures && (!filter || g.name.includes(filter))));
  const cases = groups.flatMap((g) => g.cases);
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const figures: Array<[string, Figure[]]> = [];
  const started = performance.now();
  try {
    for (const g of groups) await g.setup?.();
    for (const c of cases) for (let i = 0; i < Math.ceil(c.warmup * Math.min(1, scale)); i++) await c.once();
    for (let round = 0; round < rounds; round++) {
      for (const c of cases) {
        const s = samples.get(c.name) as number[];
        const n = Math.max(1, Math.round((c.calls * scale) / rounds));
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          await c.once();
          s.push(performance.now() - t);
        }
      }
    }
    for (const g of groups) if (g.figures) figures.push([g.name, await g.figures()]);
  } finally {
    for (const g of groups) await g.teardown?.();
  }
  const rows = new Map([...samples].map(([name, s]) => [name, summarise(name, s)]));
  if (rows.size > 0) printTable([...rows.values()]);
  const ratios: RatioResult[] = [];
  for (const g of groups) {
    for (const r of g.ratios ?? []) {
      const result = ratioOf(r, rows);
      if (!result) continue;
      ratios.push(result);
      console.log(`\nratio: ${r.a} / ${r.b} = ${result.value.toFixed(2)}${result.unit} (by medians ${result.byMedians.toFixed(2)}x)${result.verdict ? `  [${result.verdict}]` : ''}`);
    }
  }
  for (const [group, list] of figures) {
    console.log(`\n${group}:`);
    for (const f of list) console.log(`  ${f.name}: ${f.value}${f.verdict ? `  [${f.verdict}]` : ''}`);
  }
  const file = o.resultsFile ?? 'bench-results.json';
  const report = {
    at: new Date().toISOString(),
    quick: o.quick === true,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    cases: [...rows.values()],
    ratios,
    figures: figures.map(([group, list]) => ({ group, figures: list })),
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${report.seconds} s; the same figures are in ${file}`);
}

export function summarise(name: string, samples: number[]): Row {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((a, b) => a + b, 0);
  const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { name, calls: samples.length, perSec: (samples.length / total) * 1000, mean: total / samples.length, p50: q(0.5), p95: q(0.95) };
}

/** "within target" / "MISSES target" for a value and its bound. */
export function verdict(value: number, target: { max?: number; min?: number }): string {
  const text = [target.max !== undefined ? `<= ${target.max}` : '', target.min !== undefined ? `>= ${target.min}` : ''].filter(Boolean).join(' and ');
  const ok = (target.max === undefined || value <= target.max) && (target.min === undefined || value >= target.min);
  return `target ${text}: ${ok ? 'met' : 'MISSED'}`;
}

function printTable(rows: Row[]): void {
  const header = ['case', 'calls', 'calls/s', 'mean ms', 'p50 ms', 'p95 ms'];
  const table = rows.map((r) => [r.name, String(r.calls), r.perSec.toFixed(1), r.mean.toFixed(3), r.p50.toFixed(3), r.p95.toFixed(3)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table) console.log(line(row));
}

function ratioOf(r: Ratio, rows: Map<string, Row>): RatioResult | undefined {
  const a = rows.get(r.a);
  const b = rows.get(r.b);
  if (!a || !b) return undefined;
  const mean = r.as === 'faster' ? a.perSec / b.perSec : a.mean / b.mean;
  const byMedians = r.as === 'faster' ? b.p50 / a.p50 : a.p50 / b.p50;
  const value = r.by === 'p50' ? byMedians : mean;
  const unit = r.as === 'faster' ? 'x calls per second' : 'x the time per call';
  const judged = r.target ? `${r.by === 'p50' ? 'by medians, ' : ''}${verdict(value, r.target)}` : undefined;
  return { a: r.a, b: r.b, value: mean, byMedians, unit, ...(judged ? { verdict: judged } : {}) };
}
