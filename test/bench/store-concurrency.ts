// Throughput of set_session from 8 clients at once against one client, on
// the default SQLite store (each acknowledged write durable): group commit
// lets concurrent writes share a commit instead of queueing one fsync each,
// which also shows as fewer bytes written per call (pages shared by a commit).
import type { BenchGroup, Figure } from './harness';
import { verdict } from './harness';
import { join } from 'node:path';
import { FIXTURES } from '../integration/serve-process';
import { acquireServers, callOk, mcpClient, procCpuMs, procIo, releaseServers, startMcc, type BenchServer } from './store-servers';

const CALLS_PER_CLIENT = 300;
const ROUNDS = 3;

interface Run {
  perSec: number;
  bytesPerCall: number;
  /** CPU ms per call of the server, and of this process (the clients). */
  serverCpu: number;
  clientCpu: number;
}

/** Calls per second of `clients` clients, each making its calls one after another, and the bytes each call wrote. */
async function throughput(server: BenchServer, clients: number, round: number): Promise<Run> {
  const cs = await Promise.all(Array.from({ length: clients }, (_, i) => mcpClient(server, `concurrency-${round}-${clients}-${i}`)));
  const before = procIo(server.pid).writeBytes;
  const cpu = [procCpuMs(server.pid), process.cpuUsage()] as const;
  const t = performance.now();
  await Promise.all(
    cs.map(async (c) => {
      for (let i = 0; i < CALLS_PER_CLIENT; i++) await callOk(c, 'set_session', { name: 'v', value: i });
    }),
  );
  const elapsed = performance.now() - t;
  const calls = clients * CALLS_PER_CLIENT;
  const bytesPerCall = (procIo(server.pid).writeBytes - before) / calls;
  const serverCpu = (procCpuMs(server.pid) - cpu[0]) / calls;
  const used = process.cpuUsage(cpu[1]);
  await Promise.all(cs.map((c) => c.close()));
  return { perSec: (calls * 1000) / elapsed, bytesPerCall, serverCpu, clientCpu: (used.user + used.system) / 1000 / calls };
}

/** 8 clients at once on a server of its own, which logs on exit how many commits its changes took. */
async function commitsOf8(): Promise<{ perSec: number; commitsPerSec: number; perCommit: number } | undefined> {
  const server = await startMcc({ tools: join(FIXTURES, 'tools.yaml'), keepLog: true });
  let run: Run;
  try {
    run = await throughput(server, 8, 0);
  } finally {
    await server.stop();
  }
  const m = /: (\d+) changes in (\d+) commits/.exec(server.log());
  // A build before the count was logged (BENCH_CLI).
  if (!m) return undefined;
  const [changes, commits] = [Number(m[1]), Number(m[2])];
  const seconds = (changes / run.perSec);
  return { perSec: run.perSec, commitsPerSec: commits / seconds, perCommit: changes / commits };
}

export const storeConcurrency: BenchGroup = {
  name: 'session store concurrency (set_session, default store, 10 buckets)',
  slow: true,
  cases: [],
  figures: async (): Promise<Figure[]> => {
    const s = await acquireServers();
    try {
      const one: Run = { perSec: 0, bytesPerCall: 0, serverCpu: 0, clientCpu: 0 };
      const eight: Run = { ...one };
      const add = (to: Run, r: Run): void => {
        for (const k of ['perSec', 'bytesPerCall', 'serverCpu', 'clientCpu'] as const) to[k] += r[k] / ROUNDS;
      };
      // Interleaved, so both see the same machine.
      for (let r = 0; r < ROUNDS; r++) {
        add(one, await throughput(s.mcc10, 1, r));
        add(eight, await throughput(s.mcc10, 8, r));
      }
      const ratio = eight.perSec / one.perSec;
      const g = await commitsOf8();
      const line = (r: Run): string =>
        `${r.perSec.toFixed(0)} calls/s, ${(r.bytesPerCall / 1024).toFixed(1)} KiB to storage per call; CPU per call: server ${r.serverCpu.toFixed(2)} ms, clients ${r.clientCpu.toFixed(2)} ms`;
      return [
        { name: '1 client', value: line(one) },
        { name: '8 clients', value: line(eight) },
        { name: '8 clients / 1 client', value: `${ratio.toFixed(2)}x`, verdict: verdict(ratio, { min: 4 }) },
        {
          name: '8 clients, group commit (a server of its own)',
          value: g ? `${g.perSec.toFixed(0)} sets/s in ${g.commitsPerSec.toFixed(0)} commits/s: ${g.perCommit.toFixed(1)} sets per commit (fsync)` : 'this build does not log its commits',
        },
      ];
    } finally {
      await releaseServers();
    }
  },
};
