// Throughput of set_session from 8 clients at once against one client, on
// the default SQLite store (each acknowledged write durable): group commit
// lets concurrent writes share a commit instead of queueing one fsync each.
import type { BenchGroup, Figure } from './harness';
import { verdict } from './harness';
import { acquireServers, callOk, mcpClient, releaseServers, type BenchServer } from './store-servers';

const CALLS_PER_CLIENT = 300;
const ROUNDS = 3;

/** Calls per second of `clients` clients, each making its calls one after another. */
async function throughput(server: BenchServer, clients: number, round: number): Promise<number> {
  const cs = await Promise.all(Array.from({ length: clients }, (_, i) => mcpClient(server, `concurrency-${round}-${clients}-${i}`)));
  const t = performance.now();
  await Promise.all(
    cs.map(async (c) => {
      for (let i = 0; i < CALLS_PER_CLIENT; i++) await callOk(c, 'set_session', { name: 'v', value: i });
    }),
  );
  const elapsed = performance.now() - t;
  await Promise.all(cs.map((c) => c.close()));
  return (clients * CALLS_PER_CLIENT * 1000) / elapsed;
}

export const storeConcurrency: BenchGroup = {
  name: 'session store concurrency (set_session, default store, 10 buckets)',
  cases: [],
  figures: async (): Promise<Figure[]> => {
    const s = await acquireServers();
    try {
      let one = 0;
      let eight = 0;
      // Interleaved, so both see the same machine.
      for (let r = 0; r < ROUNDS; r++) {
        one += await throughput(s.mcc10, 1, r);
        eight += await throughput(s.mcc10, 8, r);
      }
      const ratio = eight / one;
      return [
        { name: '1 client', value: `${(one / ROUNDS).toFixed(0)} calls/s` },
        { name: '8 clients', value: `${(eight / ROUNDS).toFixed(0)} calls/s` },
        { name: '8 clients / 1 client', value: `${ratio.toFixed(2)}x`, verdict: verdict(ratio, { min: 4 }) },
      ];
    } finally {
      await releaseServers();
    }
  },
};
