// Function tools: JavaScript in workers against Python in a warm process and
// in a one-shot interpreter, through the executor alone; and the tool runner
// (transform, cache_ttl) that the runtime puts around every executor.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { FnTool } from '../../src/core/catalog/types';
import { JS_DIR, jsTool, pyTool } from '../unit/fn/helpers';
import { FnExecutor } from '../../src/core/fn/fn-executor';
import { ToolRunner } from '../../src/core/runner/tool-runner';
import { nullEventSink, type RunContext, type ToolRuns } from '../../src/core/tool-run/contract';
import { verdict, type BenchGroup, type Figure } from './harness';

const STORE = { user: 'bench', email: '', groups: ['admin'], tools: [] as string[] };

function ctx(): RunContext {
  return { runId: randomUUID(), caller: { user: 'bench', bucketKey: 'bench' }, store: STORE, events: nullEventSink };
}

let fn: FnExecutor | undefined;
let kit: ToolRuns | undefined;

async function runFn(tool: FnTool, through: 'executor' | 'kit' = 'executor'): Promise<void> {
  fn ??= new FnExecutor({ poolSize: 2 });
  kit ??= new ToolRunner().wrap(fn);
  const r = through === 'kit' ? await kit.run(tool, {}, ctx()) : await fn.prepare(tool, {}, ctx()).start();
  if (r.code !== 0 || r.value !== 'pong') throw new Error(`${tool.target} failed (code ${r.code}): ${r.stderr}`);
}

const jsTrivial = jsTool('ping', {}, join(JS_DIR, 'trivial.mjs'));
const pyTrivial = pyTool('fnpkg.tools:trivial');
// A Unix limit keeps a tool off the warm processes: one interpreter per call.
const pyOneShot = pyTool('fnpkg.tools:trivial', { limits: { nofile: 1024 } });
const jsCached = { ...jsTrivial, key: 'bench.cached', cacheTtl: 3600 };

export const fnTools: BenchGroup = {
  name: 'function tools',
  cases: [
    { name: 'fn js trivial (worker)', calls: 2000, warmup: 200, once: () => runFn(jsTrivial) },
    { name: 'fn python trivial (warm process)', calls: 1000, warmup: 50, once: () => runFn(pyTrivial) },
    { name: 'fn python trivial (one-shot, limits)', calls: 30, warmup: 3, once: () => runFn(pyOneShot) },
    { name: 'fn js trivial (worker, through the tool runner)', calls: 2000, warmup: 200, once: () => runFn(jsTrivial, 'kit') },
    { name: 'fn js trivial (cache_ttl hit)', calls: 2000, warmup: 10, once: () => runFn(jsCached, 'kit') },
  ],
  ratios: [
    { a: 'fn js trivial (worker)', b: 'fn python trivial (warm process)', as: 'faster' },
    { a: 'fn python trivial (warm process)', b: 'fn python trivial (one-shot, limits)', as: 'faster' },
    // The kit costs (next to) nothing when a tool has no transform and no cache, and a cache hit answers without a worker.
    { a: 'fn js trivial (worker, through the tool runner)', b: 'fn js trivial (worker)', as: 'slower' },
    { a: 'fn js trivial (cache_ttl hit)', b: 'fn js trivial (worker)', as: 'faster' },
  ],
  // 8 callers at once on a warm pool of 2: calls wait for a warm process to
  // free up instead of each starting an interpreter (python-pool.ts). Each
  // caller is a loop of its own, as 8 clients are; before, the 8 went in
  // waves that each waited for the slowest, and the first wave started the
  // second process inside the timed part.
  async figures(): Promise<Figure[]> {
    const perSec = { sequential: 0, concurrent: 0 };
    const quick = process.argv.includes('--quick');
    const calls = quick ? 80 : 400;
    const caller = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await runFn(pyTrivial);
    };
    // Both processes warm before the clock starts (the cases above warmed one).
    await Promise.all(Array.from({ length: 8 }, () => caller(4)));
    for (let round = 0; round < 3; round++) {
      let t = performance.now();
      await caller(calls);
      perSec.sequential += calls / ((performance.now() - t) / 1000);
      // Eight callers, each sending its next call when its last one is answered.
      t = performance.now();
      await Promise.all(Array.from({ length: 8 }, () => caller(calls / 8)));
      perSec.concurrent += calls / ((performance.now() - t) / 1000);
    }
    const ratio = perSec.concurrent / perSec.sequential;
    return [
      { name: 'fn python trivial, 1 caller', value: `${(perSec.sequential / 3).toFixed(0)} calls/s`, number: perSec.sequential / 3 },
      { name: 'fn python trivial, 8 callers at once (2 warm processes)', value: `${(perSec.concurrent / 3).toFixed(0)} calls/s`, number: perSec.concurrent / 3 },
      { name: 'fn python trivial, 8 callers / 1 caller', value: `${ratio.toFixed(2)}x`, number: ratio, verdict: verdict(ratio, { min: 1 }) },
    ];
  },
  teardown: async () => {
    await kit?.dispose?.();
    await fn?.dispose();
    fn = undefined;
    kit = undefined;
  },
};
