// Throughput of set_session from 8 clients at once against one client, on
// the default SQLite store (each acknowledged write durable): group commit
// lets concurrent writes share a commit instead of queueing one fsync each,
// which also shows as fewer bytes written per call (pages shared by a commit).
import type { BenchGroup, Figure } from './harness';
import { verdict } from './harness';
import { acquireServers, callOk, mcpClient, procIo, releaseServers, type BenchServer } from './store-servers';

const CALLS_PER_CLIENT = 300;
const ROUNDS = 3;

interface Run {
  perSec: number;
  bytesPerCall: number;
}

/** Calls per second of `clients` clients, each making its calls one after another, and the bytes each call wrote. */
async function throughput(server: BenchServer, clients: number, round: number): Promise<Run> {
  const cs = await Promise.all(Array.from({ length: clients }, (_, i) => mcpClient(server, `concurrency-${round}-${clients}-${i}`)));
  const before = procIo(server.pid).writeBytes;
  const t = performance.now();
  await Promise.all(
    cs.map(async (c) => {
      for (let i = 0; i < CALLS_PER_CLIENT; i++) await callOk(c, 'set_session', { name: 'v', value: i });
    }),
  );
  const elapsed = performance.now() - t;
  const calls = clients * CALLS_PER_CLIENT;
  const bytesPerCall = (procIo(server.pid).writeBytes - before) / calls;
  await Promise.all(cs.map((c) => c.close()));
  return { perSec: (calls * 1000) / elapsed, bytesPerCall };
}

export const storeConcurrency: BenchGroup = {
  name: 'session store concurrency (set_session, default store, 10 buckets)',
  slow: true,
  cases: [],
  figures: async (): Promise<Figure[]> => {
    const s = await acquireServers();
    try {
      const one: Run = { perSec: 0, bytesPerCall: 0 };
      const eight: Run = { perSec: 0, bytesPerCall: 0 };
      const add = (to: Run, r: Run): void => {
        to.perSec += r.perSec / ROUNDS;
        to.bytesPerCall += r.bytesPerCall / ROUNDS;
      };
      // Interleaved, so both see the same machine.
      for (let r = 0; r < ROUNDS; r++) {
        add(one, await throughput(s.mcc10, 1, r));
        add(eight, await throughput(s.mcc10, 8, r));
      }
      const ratio = eight.perSec / one.perSec;
      return [
        { name: '1 client', value: `${one.perSec.toFixed(0)} calls/s, ${(one.bytesPerCall / 1024).toFixed(1)} KiB to storage per call` },
        { name: '8 clients', value: `${eight.perSec.toFixed(0)} calls/s, ${(eight.bytesPerCall / 1024).toFixed(1)} KiB to storage per call` },
        { name: '8 clients / 1 client', value: `${ratio.toFixed(2)}x`, verdict: verdict(ratio, { min: 4 }) },
      ];
    } finally {
      await releaseServers();
    }
  },
};
