// `npm run bench`: every figure group, measured side by side in one run.
// Add a group: a file exporting a BenchGroup (harness.ts), listed below.
// `npm run bench -- --quick`: fewer calls and no slow groups (under a minute).
// Environment: BENCH_FILTER=<substring of a case or group name> runs only
// those, BENCH_SCALE=<factor> multiplies the calls, BENCH_CLI=<cli.js> points
// the store groups at another build of mcc.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calls } from './calls';
import { fnTools } from './fn-tools';
import { runBench, type BenchGroup } from './harness';
import { sandbox } from './sandbox';
import { storeConcurrency } from './store-concurrency';
import { storeRoundTrip } from './store-roundtrip';
import { startup } from './startup';
import { storeWrites } from './store-writes';
import { toolEnv } from './tool-env';
import { traces } from './traces';

export const GROUPS: BenchGroup[] = [calls, startup, fnTools, toolEnv, sandbox, storeRoundTrip, storeWrites, storeConcurrency, traces];

if (require.main === module) {
  // The servers it starts keep their caches in a folder of the run's own, not the user's.
  const cache = mkdtempSync(join(tmpdir(), 'mcc-bench-cache-'));
  process.env.MCC_CACHE_DIR ??= cache;
  runBench(GROUPS, process.env, { quick: process.argv.includes('--quick') })
    .catch((e: unknown) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      process.exitCode = 1;
    })
    .finally(() => rmSync(cache, { recursive: true, force: true }));
}
