// What one session call costs the disk, from the server's own /proc/<pid>/io:
// bytes written per set_session of a small value (at most 8 KiB, and no more
// with more buckets or more variables in the bucket) and per get_session
// (which should write nothing).
import { verdict, type BenchGroup, type Figure } from './harness';
import { acquireServers, callOk, mcpClient, procIo, releaseServers, type BenchServer } from './store-servers';

const CALLS = 200;
/** Variables of the wide bucket the last case writes into. */
const WIDE = 200;
const MAX_SET_BYTES = 8 * 1024;

async function bytesPerCall(server: BenchServer, call: (i: number) => Promise<void>): Promise<{ written: number; wchar: number }> {
  const before = procIo(server.pid);
  for (let i = 0; i < CALLS; i++) await call(i);
  const after = procIo(server.pid);
  return { written: (after.writeBytes - before.writeBytes) / CALLS, wchar: (after.wchar - before.wchar) / CALLS };
}

function kib(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes.toFixed(0)} B`;
}

export const storeWrites: BenchGroup = {
  name: 'session store writes (server /proc/<pid>/io, per call)',
  slow: true,
  cases: [],
  figures: async (): Promise<Figure[]> => {
    const s = await acquireServers();
    try {
      const out: Figure[] = [];
      const sets: number[] = [];
      for (const [label, server] of [['10 buckets', s.mcc10], ['10,000 buckets', s.mcc10k]] as const) {
        const c = await mcpClient(server, 'writes');
        const set = await bytesPerCall(server, (i) => callOk(c, 'set_session', { name: 'small', value: i }));
        const get = await bytesPerCall(server, () => callOk(c, 'get_session', { name: 'small' }));
        await c.close();
        sets.push(set.written);
        out.push({ name: `set_session, ${label}`, value: `${kib(set.written)} to storage (${kib(set.wchar)} through write())` });
        out.push({ name: `get_session, ${label}`, value: `${kib(get.written)} to storage (${kib(get.wchar)} through write(), log lines included)` });
      }
      const c = await mcpClient(s.mcc10, 'writes-wide');
      for (let v = 0; v < WIDE; v++) await callOk(c, 'set_session', { name: `v${v}`, value: { v, note: 'a small value' } });
      const wide = await bytesPerCall(s.mcc10, (i) => callOk(c, 'set_session', { name: 'small', value: i }));
      await c.close();
      sets.push(wide.written);
      out.push({ name: `set_session, 10 buckets, into one of ${WIDE} variables`, value: `${kib(wide.written)} to storage (${kib(wide.wchar)} through write())` });
      const [few, many] = sets as [number, number, number];
      const worst = Math.max(...sets);
      out.push({ name: 'set_session bytes to storage, the most of the three', value: `${worst.toFixed(0)} B`, number: worst, verdict: verdict(worst, { max: MAX_SET_BYTES }) });
      out.push({ name: 'set_session bytes, 10,000 buckets / 10', value: `${(many / few).toFixed(2)}x`, verdict: many / few <= 1.5 ? 'independent of the number of buckets' : 'GROWS with the number of buckets' });
      out.push({ name: `set_session bytes, ${WIDE} variables / 1`, value: `${(wide.written / few).toFixed(2)}x`, verdict: wide.written / few <= 1.5 ? 'independent of the number of variables' : 'GROWS with the number of variables' });
      return out;
    } finally {
      await releaseServers();
    }
  },
};
