// What the tool sandbox costs: execute of `exec: "true"` through `mcc serve`
// in the default sandbox (bubblewrap: new PID, network, IPC and UTS
// namespaces, a fresh /proc, /dev and /tmp) against the same server without
// one. The target: at most 5 ms more per call.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { verdict, type BenchGroup, type Figure } from './harness';
import { writeCatalogs } from './catalogs';
import { startMcc, callOk, mcpClient, type StartedServer } from './store-servers';

const PLAIN = 'execute true (mcc serve, no sandbox)';
const BOXED = 'execute true (mcc serve --sandbox default)';
const TARGET_MS = 5;
const PAIRS = 200;

const clients = new Map<string, Client>();
const servers: StartedServer[] = [];
let catalogs: ReturnType<typeof writeCatalogs> | undefined;

function client(name: string): Client {
  const c = clients.get(name);
  if (!c) throw new Error(`${name} is not set up`);
  return c;
}

const execute = (name: string): Promise<void> => callOk(client(name), 'execute', { key: 'bench.noop', params: {} });

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
  },
  async teardown() {
    await Promise.allSettled([...clients.values()].map((c) => c.close()));
    clients.clear();
    await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
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
    return [
      { name: 'sandbox cost per call (mean of pairs)', value: `+${mean.toFixed(2)} ms`, number: mean, verdict: verdict(mean, { max: TARGET_MS }) },
      { name: 'sandbox cost per call (median of pairs)', value: `+${p50.toFixed(2)} ms`, number: p50, verdict: verdict(p50, { max: TARGET_MS }) },
    ];
  },
};
