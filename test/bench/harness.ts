// The bench harness: groups of cases measured side by side in one process.
// Every case is warmed up, then the cases of all groups take turns in rounds
// so that a noisy neighbour slows all of them alike. Ratios compare two cases
// of the same run; figures are measured by a group itself (bytes, throughput).

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
  /** The issue's target, e.g. { max: 1.15 } for "at most 1.15x the time". */
  target?: { max?: number; min?: number };
}

export interface Figure {
  name: string;
  value: string;
  /** How the value compares with its target, when it has one. */
  verdict?: string;
}

export interface BenchGroup {
  name: string;
  cases: BenchCase[];
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

const ROUNDS = 5;

/** Measures the groups (BENCH_FILTER: a substring of case or group names; BENCH_SCALE: call multiplier) and prints the report. */
export async function runBench(all: BenchGroup[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const filter = env.BENCH_FILTER;
  const scale = Number(env.BENCH_SCALE ?? '1') || 1;
  const groups = all
    .map((g) => ({ ...g, cases: filter && !g.name.includes(filter) ? g.cases.filter((c) => c.name.includes(filter)) : g.cases }))
    .filter((g) => g.cases.length > 0 || (g.figures && (!filter || g.name.includes(filter))));
  const cases = groups.flatMap((g) => g.cases);
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const figures: Array<[string, Figure[]]> = [];
  try {
    for (const g of groups) await g.setup?.();
    for (const c of cases) for (let i = 0; i < c.warmup; i++) await c.once();
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const s = samples.get(c.name) as number[];
        const n = Math.max(1, Math.round((c.calls * scale) / ROUNDS));
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
  for (const g of groups) for (const r of g.ratios ?? []) printRatio(r, rows);
  for (const [group, list] of figures) {
    console.log(`\n${group}:`);
    for (const f of list) console.log(`  ${f.name}: ${f.value}${f.verdict ? `  [${f.verdict}]` : ''}`);
  }
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

function printRatio(r: Ratio, rows: Map<string, Row>): void {
  const a = rows.get(r.a);
  const b = rows.get(r.b);
  if (!a || !b) return;
  const value = r.as === 'faster' ? a.perSec / b.perSec : a.mean / b.mean;
  const median = r.as === 'faster' ? b.p50 / a.p50 : a.p50 / b.p50;
  const unit = r.as === 'faster' ? 'x calls per second' : 'x the time per call';
  const judged = r.target ? `  [${verdict(value, r.target)}]` : '';
  console.log(`\nratio: ${r.a} / ${r.b} = ${value.toFixed(2)}${unit} (by medians ${median.toFixed(2)}x)${judged}`);
}
