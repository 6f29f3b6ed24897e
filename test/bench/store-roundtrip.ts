// The session store's round trip through `mcc serve`: set_session then
// get_session, against a bare SDK echo server called twice with the same
// client code (the floor), and with 10,000 live buckets against 10. Wall
// time per pair, and the server's own CPU per pair, which unlike wall time
// does not depend on what else the machine is running.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { verdict, type BenchGroup, type Figure } from './harness';
import { acquireServers, callOk, mcpClient, procCpuMs, releaseServers, type BenchServer } from './store-servers';

const ECHO = 'echo x2 (bare SDK server)';
const SET_GET_10 = 'set+get (mcc serve, default store, 10 buckets)';
const SET_GET_10K = 'set+get (mcc serve, default store, 10,000 buckets)';
const CPU_ROUNDS = 3;
const CPU_PAIRS = 100;

interface Target {
  server: BenchServer;
  client: Client;
}

const targets = new Map<string, Target>();
let n = 0;

function client(name: string): Client {
  const t = targets.get(name);
  if (!t) throw new Error(`${name} is not set up`);
  return t.client;
}

async function echoPair(): Promise<void> {
  const text = `probe ${++n}`;
  await callOk(client(ECHO), 'echo', { text }, text);
  await callOk(client(ECHO), 'echo', { text }, text);
}

function setGet(name: string): () => Promise<void> {
  return async () => {
    const value = { n: ++n, note: 'a small value' };
    await callOk(client(name), 'set_session', { name: 'probe', value }, "Set 'probe'.");
    await callOk(client(name), 'get_session', { name: 'probe' }, JSON.stringify(value));
  };
}

const pairs: Array<[string, () => Promise<void>]> = [
  [ECHO, echoPair],
  [SET_GET_10, setGet(SET_GET_10)],
  [SET_GET_10K, setGet(SET_GET_10K)],
];

/** Server CPU ms per pair for each case, measured in interleaved rounds. */
async function serverCpu(): Promise<Map<string, number>> {
  const total = new Map<string, number>(pairs.map(([name]) => [name, 0]));
  for (let r = 0; r < CPU_ROUNDS; r++) {
    for (const [name, once] of pairs) {
      const pid = targets.get(name)?.server.pid as number;
      const before = procCpuMs(pid);
      for (let i = 0; i < CPU_PAIRS; i++) await once();
      total.set(name, (total.get(name) ?? 0) + procCpuMs(pid) - before);
    }
  }
  return new Map([...total].map(([name, ms]) => [name, ms / (CPU_ROUNDS * CPU_PAIRS)]));
}

export const storeRoundTrip: BenchGroup = {
  name: 'session store round trip',
  slow: true,
  cases: pairs.map(([name, once]) => ({ name, calls: 500, warmup: 50, once })),
  ratios: [
    { a: SET_GET_10, b: ECHO, as: 'slower', target: { max: 1.15 } },
    { a: SET_GET_10K, b: SET_GET_10, as: 'slower', target: { max: 1.2 } },
  ],
  figures: async (): Promise<Figure[]> => {
    const cpu = await serverCpu();
    const [echo, few, many] = [ECHO, SET_GET_10, SET_GET_10K].map((name) => cpu.get(name) ?? NaN) as [number, number, number];
    return [
      { name: 'server CPU per pair: echo x2 / set+get, 10 buckets / set+get, 10,000 buckets', value: `${echo.toFixed(2)} / ${few.toFixed(2)} / ${many.toFixed(2)} ms` },
      { name: 'server CPU, set+get (10 buckets) / echo x2', value: `${(few / echo).toFixed(2)}x`, verdict: verdict(few / echo, { max: 1.15 }) },
      { name: 'server CPU, set+get, 10,000 buckets / 10', value: `${(many / few).toFixed(2)}x`, verdict: verdict(many / few, { max: 1.2 }) },
    ];
  },
  setup: async () => {
    const s = await acquireServers();
    for (const [name, server] of [[ECHO, s.echo], [SET_GET_10, s.mcc10], [SET_GET_10K, s.mcc10k]] as const) {
      targets.set(name, { server, client: await mcpClient(server, 'roundtrip') });
    }
  },
  teardown: async () => {
    for (const t of targets.values()) await t.client.close();
    targets.clear();
    await releaseServers();
  },
};
