// Start-up and memory, each against the bare SDK server measured in the
// same rounds:
// - start to listening: process spawn to the URL line, `mcc serve` with 500
//   tools against the echo server; a first start (an empty cache folder:
//   the CLI compiles its code and parses the catalog) and a later one (the
//   code cache and the parse cache filled by the first);
// - catalog loading of 5,000 tools on its own, in a fresh process (what a
//   start pays: first read, and read back from the parse cache) and warm
//   (a reload in a running server);
// - memory per abandoned MCP session: server RSS growth per session opened
//   (initialize, tools/list) and never closed, as most clients leave them:
//   the live heap after a full GC (what the sessions hold; heap-probe.ts),
//   and RSS.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verdict, type BenchGroup, type Figure } from './harness';
import { writeCatalogs } from './catalogs';
import { mcpClient, startEcho, startMcc, TOKEN, type StartedServer } from './store-servers';
import { CLI } from '../integration/serve-process';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** ms from spawning `node <args>` to its first line on stdout (the URL). */
function timeToListen(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, args, { env: { ...process.env, MCC_TOKEN: TOKEN, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    p.once('error', reject);
    p.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening`)));
    p.stdout.once('data', () => {
      const ms = performance.now() - t0;
      p.removeAllListeners('exit');
      p.once('exit', () => resolve(ms));
      p.kill('SIGKILL');
    });
  });
}

/** Starts `node <args>` with its caches in `dir` and stops it once it has stored its compiled code. */
async function fillCaches(args: string[], dir: string): Promise<void> {
  const p = spawn(process.execPath, args, { env: { ...process.env, MCC_TOKEN: TOKEN, MCC_CACHE_DIR: dir }, stdio: 'ignore' });
  try {
    // An older build (BENCH_CLI) stores nothing: its later starts are first starts.
    for (let waited = 0; waited < 10_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      if (existsSync(join(dir, 'code')) && readdirSync(join(dir, 'code')).some((f) => f.endsWith('.bin'))) return;
    }
  } finally {
    p.kill('SIGKILL');
  }
}

/** Catalog load of `file` in a fresh Node process, in ms, as the loader itself measures it; with a parse cache in `cacheDir`. */
function freshLoadMs(file: string, cacheDir?: string): number {
  const loader = join(__dirname, '..', '..', 'src', 'core', 'catalog', 'load.js');
  const cache = join(__dirname, '..', '..', 'src', 'core', 'cache', 'parse-cache.js');
  const script = `const { loadCatalog } = require(${JSON.stringify(loader)});
const dir = ${JSON.stringify(cacheDir ?? null)};
const parseCache = dir ? require(${JSON.stringify(cache)}).DirParseCache.open(dir) : undefined;
if (dir && !parseCache) throw new Error('cannot use ' + dir);
const t = performance.now();
loadCatalog([${JSON.stringify(file)}], parseCache ? { parseCache } : {}).then((c) => { if (c.tools.size < 5000) throw new Error('only ' + c.tools.size + ' tools'); console.log(performance.now() - t); });`;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
}

/**
 * A reload in a running server: the median of loads 2..`times` of `file` in
 * one fresh process (the first warms it up). Not in the bench's own process,
 * whose heap the groups before leave in varying states.
 */
function warmLoadMs(file: string, times: number): number {
  const loader = join(__dirname, '..', '..', 'src', 'core', 'catalog', 'load.js');
  const script = `const { loadCatalog } = require(${JSON.stringify(loader)});
(async () => {
  const ms = [];
  for (let i = 0; i < ${times}; i++) {
    const t = performance.now();
    const c = await loadCatalog([${JSON.stringify(file)}]);
    if (c.tools.size < 5000) throw new Error('only ' + c.tools.size + ' tools');
    ms.push(performance.now() - t);
  }
  console.log(JSON.stringify(ms.slice(1)));
})();`;
  return median(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as number[]);
}

const rssKiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/**
 * The server's live heap after a full garbage collection, in KiB, as its
 * heap probe (heap-probe.ts) writes it to `file` on SIGUSR2.
 */
async function heapAfterGcKiB(pid: number, file: string): Promise<number> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 30_000; waited += 20) {
    await new Promise((r) => setTimeout(r, 20));
    if (existsSync(file)) return Number(readFileSync(file, 'utf8')) / 1024;
  }
  throw new Error(`no heap figure from ${pid} (is heap-probe.js loaded?)`);
}

interface SessionCost {
  rss: number;
  heap: number;
}

/** Growth per MCP session opened (initialize + tools/list) and abandoned, in KiB: RSS, and the heap after GC. */
async function perSessionKiB(server: StartedServer, sessions: number, heapFile: string): Promise<SessionCost> {
  const open = async (i: number): Promise<void> => {
    const c = await mcpClient(server, `abandoned-${i}`);
    await c.listTools();
    // Never closed: no DELETE, as the Inspector, mcp-remote and the SDK's close() leave them.
  };
  for (let i = 0; i < 30; i++) await open(i);
  const heapBefore = await heapAfterGcKiB(server.pid, heapFile);
  const before = rssKiB(server.pid);
  for (let i = 0; i < sessions; i++) await open(1000 + i);
  await new Promise((r) => setTimeout(r, 500));
  const rss = (rssKiB(server.pid) - before) / sessions;
  return { rss, heap: ((await heapAfterGcKiB(server.pid, heapFile)) - heapBefore) / sessions };
}

function memoryFigures(sessions: number, echo: SessionCost, mcc: SessionCost): Figure[] {
  const heapRatio = mcc.heap / echo.heap;
  return [
    { name: `held per abandoned MCP session (heap after GC), bare SDK server (${sessions} sessions)`, value: `${echo.heap.toFixed(1)} KiB`, number: echo.heap },
    { name: `held per abandoned MCP session (heap after GC), mcc serve, 500 tools`, value: `${mcc.heap.toFixed(1)} KiB`, number: mcc.heap },
    { name: 'held per abandoned MCP session, mcc / bare SDK', value: `${heapRatio.toFixed(2)}x`, number: heapRatio, verdict: verdict(heapRatio, { max: 1.2 }) },
    // RSS also counts garbage not yet collected, so it moves with GC timing.
    { name: 'RSS growth per abandoned MCP session, bare SDK / mcc serve', value: `${echo.rss.toFixed(1)} / ${mcc.rss.toFixed(1)} KiB (${(mcc.rss / echo.rss).toFixed(2)}x)`, number: mcc.rss / echo.rss },
  ];
}

function startFigures(t: { echo: number[]; first: number[]; later: number[] }): Figure[] {
  const echo = median(t.echo);
  const row = (what: string, ms: number): Figure[] => [
    { name: `start to listening, mcc serve with 500 tools, ${what} (median)`, value: `${ms.toFixed(0)} ms`, number: ms },
    { name: `start to listening, ${what}, mcc / bare SDK`, value: `${(ms / echo).toFixed(2)}x`, number: ms / echo, verdict: verdict(ms / echo, { max: 1.2 }) },
  ];
  // The issue asks for every first start within 1.2x, not the median only:
  // each round's first start against the bare server started in that round.
  const within = t.first.filter((ms, i) => ms / (t.echo[i] ?? NaN) <= 1.2).length;
  return [
    { name: 'start to listening, bare SDK server (median)', value: `${echo.toFixed(0)} ms`, number: echo },
    ...row('first start (empty cache folder)', median(t.first)),
    {
      name: 'first starts within 1.2x of the bare SDK server started in the same round',
      value: `${within} of ${t.first.length} (${t.first.map((ms, i) => (ms / (t.echo[i] ?? NaN)).toFixed(2)).join(' ')})`,
      number: within / t.first.length,
      verdict: verdict(within / t.first.length, { min: 1 }),
    },
    ...row('later start (code and parse caches filled)', median(t.later)),
  ];
}

function quick(): boolean {
  return process.argv.includes('--quick');
}

export const startup: BenchGroup = {
  name: 'start-up and memory',
  cases: [],
  async figures(): Promise<Figure[]> {
    const catalogs = writeCatalogs([500, 5000]);
    try {
      const rounds = quick() ? 5 : 10;
      const times = { echo: [] as number[], first: [] as number[], later: [] as number[] };
      const echoArgs = [join(__dirname, 'echo-server.js')];
      const mccArgs = [process.env.BENCH_CLI ?? CLI, 'serve', '--tools', catalogs.paths.get(500) as string, '--store', 'memory:'];
      const caches = mkdtempSync(join(tmpdir(), 'mcc-bench-cache-'));
      const filled = join(caches, 'filled');
      await fillCaches(mccArgs, filled);
      for (let i = 0; i < rounds; i++) {
        times.echo.push(await timeToListen(echoArgs));
        times.first.push(await timeToListen(mccArgs, { MCC_CACHE_DIR: join(caches, `empty-${i}`) }));
        times.later.push(await timeToListen(mccArgs, { MCC_CACHE_DIR: filled }));
      }
      const big = catalogs.paths.get(5000) as string;
      const loads = quick() ? 2 : 5;
      const fresh = median(Array.from({ length: loads }, (_, i) => freshLoadMs(big, join(caches, `load-empty-${i}`))));
      freshLoadMs(big, join(caches, 'load-filled'));
      const freshCached = median(Array.from({ length: loads }, () => freshLoadMs(big, join(caches, 'load-filled'))));
      rmSync(caches, { recursive: true, force: true });
      const warm = warmLoadMs(big, quick() ? 4 : 7);
      const sessions = quick() ? 100 : 600;
      const heapDir = mkdtempSync(join(tmpdir(), 'mcc-bench-heap-'));
      const probe = (name: string): NodeJS.ProcessEnv => ({
        NODE_OPTIONS: `--expose-gc --require ${join(__dirname, 'heap-probe.js')}`,
        BENCH_HEAP_FILE: join(heapDir, name),
      });
      const limits = ['--mcp-sessions-per-user', '100000', '--mcp-sessions-max', '100000'];
      const memory = await Promise.all([startEcho(probe('echo')), startMcc({ tools: catalogs.paths.get(500) as string, args: limits, env: probe('mcc') })]);
      let echoKiB: SessionCost;
      let mccKiB: SessionCost;
      try {
        echoKiB = await perSessionKiB(memory[0], sessions, join(heapDir, 'echo'));
        mccKiB = await perSessionKiB(memory[1], sessions, join(heapDir, 'mcc'));
      } finally {
        await Promise.allSettled(memory.map((s) => s.stop()));
        rmSync(heapDir, { recursive: true, force: true });
      }
      return [
        ...startFigures(times),
        { name: 'catalog load, 5,000 tools, fresh process, first read (median)', value: `${fresh.toFixed(0)} ms`, number: fresh, verdict: verdict(fresh, { max: 250 }) },
        { name: 'catalog load, 5,000 tools, fresh process, parse cache filled (median)', value: `${freshCached.toFixed(0)} ms`, number: freshCached, verdict: verdict(freshCached, { max: 250 }) },
        { name: 'catalog load, 5,000 tools, warm (a reload; median)', value: `${warm.toFixed(0)} ms`, number: warm, verdict: verdict(warm, { max: 250 }) },
        ...memoryFigures(sessions, echoKiB, mccKiB),
      ];
    } finally {
      catalogs.cleanup();
    }
  },
};
