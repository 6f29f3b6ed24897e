// What the tool sandbox costs: execute of `exec: "true"` through `mcc serve`
// in the default sandbox (bubblewrap: new PID, network, IPC and UTS
// namespaces, a fresh /proc, /dev and /tmp) against the same server without
// one. The target: at most 5 ms more per call. The wall time grows
// with the machine's load; the CPU time it takes (server and children) much
// less, so both are reported.
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { verdict, type BenchGroup, type Figure } from './harness';
import { writeCatalogs } from './catalogs';
import { startMcc, callOk, mcpClient, stopAll, type StartedServer } from './store-servers';

const PLAIN = 'execute true (mcc serve, no sandbox)';
const BOXED = 'execute true (mcc serve --sandbox default)';
const TARGET_MS = 5;
const PAIRS = 200;

const CPU_CALLS = 300;

const clients = new Map<string, Client>();
const pids = new Map<string, number>();
const servers: StartedServer[] = [];
let catalogs: ReturnType<typeof writeCatalogs> | undefined;

function client(name: string): Client {
  const c = clients.get(name);
  if (!c) throw new Error(`${name} is not set up`);
  return c;
}

const execute = (name: string): Promise<void> => callOk(client(name), 'execute', { key: 'bench.noop', params: {} });

/**
 * CPU time of the server and of every process it or its spawner waited for
 * (bwrap and the shell count as children), in ms: what the machine spends
 * on a call, however busy it is with other work (wall times grow with
 * load). The spawner (runner/spawner.ts) starts the children, so its own
 * time and its children's are added.
 */
function cpuWithChildrenMs(pid: number): number {
  const helper = spawnerOf(pid);
  return procCpuWithChildren(pid) + (helper !== undefined ? procCpuWithChildren(helper) : 0);
}

function procCpuWithChildren(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime, stime, cutime, cstime: fields 14 to 17 of the line, in ticks of 10 ms.
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

/** The server's spawner process, once it runs. */
function spawnerOf(pid: number): number | undefined {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
  return children.find((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('spawner.js');
    } catch {
      return false;
    }
  });
}

async function cpuPerCall(name: string): Promise<number> {
  const pid = pids.get(name) as number;
  const before = cpuWithChildrenMs(pid);
  for (let i = 0; i < CPU_CALLS; i++) await execute(name);
  return (cpuWithChildrenMs(pid) - before) / CPU_CALLS;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export const sandbox: BenchGroup = {
  name: 'tool sandbox',
  async setup() {
    catalogs = writeCatalogs([4]);
    const tools = catalogs.paths.get(4) as string;
    const [plain, boxed] = await Promise.all([startMcc({ tools }), startMcc({ tools, args: ['--sandbox', 'default'] })]);
    servers.push(plain, boxed);
    clients.set(PLAIN, await mcpClient(plain, 'bench-plain'));
    clients.set(BOXED, await mcpClient(boxed, 'bench-boxed'));
    pids.set(PLAIN, plain.pid);
    pids.set(BOXED, boxed.pid);
  },
  async teardown() {
    await stopAll(clients, servers);
    catalogs?.cleanup();
  },
  cases: [
    { name: PLAIN, calls: 300, warmup: 30, once: () => execute(PLAIN) },
    { name: BOXED, calls: 300, warmup: 30, once: () => execute(BOXED) },
  ],
  ratios: [{ a: BOXED, b: PLAIN, as: 'slower' }],
  // The added time itself, from calls taken in pairs (one of each, in turn),
  // so both sides see the same machine.
  async figures(): Promise<Figure[]> {
    const extra: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const t0 = performance.now();
      await execute(PLAIN);
      const t1 = performance.now();
      await execute(BOXED);
      extra.push(performance.now() - t1 - (t1 - t0));
    }
    const mean = extra.reduce((a, b) => a + b, 0) / extra.length;
    const p50 = median(extra);
    const cpuPlain = await cpuPerCall(PLAIN);
    const cpuBoxed = await cpuPerCall(BOXED);
    return [
      { name: 'server CPU per call, children included (no sandbox)', value: `${cpuPlain.toFixed(2)} ms`, number: cpuPlain },
      { name: 'server CPU per call, children included (--sandbox default)', value: `${cpuBoxed.toFixed(2)} ms`, number: cpuBoxed },
      { name: 'sandbox CPU cost per call (load-independent)', value: `+${(cpuBoxed - cpuPlain).toFixed(2)} ms`, number: cpuBoxed - cpuPlain },
      { name: 'sandbox cost per call (mean of pairs)', value: `+${mean.toFixed(2)} ms`, number: mean, verdict: verdict(mean, { max: TARGET_MS }) },
      { name: 'sandbox cost per call (median of pairs)', value: `+${p50.toFixed(2)} ms`, number: p50, verdict: verdict(p50, { max: TARGET_MS }) },
    ];
  },
};
