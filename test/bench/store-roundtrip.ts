// The session store's round trip through `mcc serve`: set_session then
// get_session, against a bare SDK echo server called twice with the same
// client code (the floor: the v2 SDK the product runs on; v1 printed beside
// it), against the durable floor (one echo that also waits for an fdatasync
// of a 4 KiB page, then one plain echo), with 10,000 live buckets against 10,
// and on a Redis store against an echo that makes one Redis round trip per
// call. Wall time per pair, and the server's own CPU per pair, which unlike
// wall time does not depend on what else the machine is running.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { verdict, type BenchGroup, type Figure } from './harness';
import { acquireServers, callOk, mcpClient, procCpuMs, releaseServers, type BenchServer } from './store-servers';

const ECHO = 'echo x2 (bare SDK v2 server)';
const ECHO_V1 = 'echo x2 (bare SDK v1 server)';
const ECHO_FSYNC = 'echo + one fdatasync, echo (bare SDK v2)';
const ECHO_REDIS = 'echo x2, one Redis GET each (bare SDK v2)';
const SET_GET_10 = 'set+get (mcc serve, default store, 10 buckets)';
const SET_GET_10K = 'set+get (mcc serve, default store, 10,000 buckets)';
const SET_GET_REDIS = 'set+get (mcc serve, Redis store)';
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

function echoPair(first: string, second = first): () => Promise<void> {
  return async () => {
    const text = `probe ${++n}`;
    await callOk(client(first), 'echo', { text }, text);
    await callOk(client(second), 'echo', { text }, text);
  };
}

function setGet(name: string): () => Promise<void> {
  return async () => {
    const value = { n: ++n, note: 'a small value' };
    await callOk(client(name), 'set_session', { name: 'probe', value }, "Set 'probe'.");
    await callOk(client(name), 'get_session', { name: 'probe' }, JSON.stringify(value));
  };
}

const pairs: Array<[string, () => Promise<void>]> = [
  [ECHO, echoPair(ECHO)],
  [ECHO_V1, echoPair(ECHO_V1)],
  [ECHO_FSYNC, echoPair(ECHO_FSYNC, ECHO)],
  [ECHO_REDIS, echoPair(ECHO_REDIS)],
  [SET_GET_10, setGet(SET_GET_10)],
  [SET_GET_10K, setGet(SET_GET_10K)],
  [SET_GET_REDIS, setGet(SET_GET_REDIS)],
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
    { a: SET_GET_10, b: ECHO_FSYNC, as: 'slower' },
    { a: ECHO_FSYNC, b: ECHO, as: 'slower' },
    { a: SET_GET_10, b: ECHO_V1, as: 'slower' },
    { a: SET_GET_10K, b: SET_GET_10, as: 'slower', target: { max: 1.2 } },
    { a: SET_GET_REDIS, b: ECHO_REDIS, as: 'slower', target: { max: 1.3 } },
  ],
  figures: async (): Promise<Figure[]> => {
    const cpu = await serverCpu();
    const [echo, v1, few, many, echoRedis, redis] = [ECHO, ECHO_V1, SET_GET_10, SET_GET_10K, ECHO_REDIS, SET_GET_REDIS].map((name) => cpu.get(name) ?? NaN) as [number, number, number, number, number, number];
    return [
      { name: 'server CPU per pair: echo x2 (v2) / echo x2 (v1) / set+get, 10 buckets / set+get, 10,000 buckets', value: `${echo.toFixed(2)} / ${v1.toFixed(2)} / ${few.toFixed(2)} / ${many.toFixed(2)} ms` },
      { name: 'server CPU, set+get (10 buckets) / echo x2 (v2)', value: `${(few / echo).toFixed(2)}x`, verdict: verdict(few / echo, { max: 1.15 }) },
      { name: 'server CPU, set+get, 10,000 buckets / 10', value: `${(many / few).toFixed(2)}x`, verdict: verdict(many / few, { max: 1.2 }) },
      { name: 'server CPU per pair, Redis: echo x2 with a GET each / set+get', value: `${echoRedis.toFixed(2)} / ${redis.toFixed(2)} ms (${(redis / echoRedis).toFixed(2)}x)` },
    ];
  },
  setup: async () => {
    const s = await acquireServers();
    const servers = [
      [ECHO, s.echo],
      [ECHO_V1, s.echoV1],
      [ECHO_FSYNC, s.echoFsync],
      [ECHO_REDIS, s.echoRedis],
      [SET_GET_10, s.mcc10],
      [SET_GET_10K, s.mcc10k],
      [SET_GET_REDIS, s.mccRedis],
    ] as const;
    for (const [name, server] of servers) {
      targets.set(name, { server, client: await mcpClient(server, 'roundtrip') });
    }
  },
  teardown: async () => {
    for (const t of targets.values()) await t.client.close();
    targets.clear();
    await releaseServers();
  },
};
