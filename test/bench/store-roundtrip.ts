// The session store's round trip through `mcc serve`: set_session then
// get_session, against a bare SDK echo server called twice with the same
// client code (the floor), and with 10,000 live buckets against 10.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BenchGroup } from './harness';
import { acquireServers, callOk, mcpClient, releaseServers } from './store-servers';

const ECHO = 'echo x2 (bare SDK server)';
const SET_GET_10 = 'set+get (mcc serve, default store, 10 buckets)';
const SET_GET_10K = 'set+get (mcc serve, default store, 10,000 buckets)';

const clients: Partial<Record<string, Client>> = {};
let n = 0;

function setGet(name: string): () => Promise<void> {
  return async () => {
    const c = clients[name] as Client;
    const value = { n: ++n, note: 'a small value' };
    await callOk(c, 'set_session', { name: 'probe', value }, "Set 'probe'.");
    await callOk(c, 'get_session', { name: 'probe' }, JSON.stringify(value));
  };
}

export const storeRoundTrip: BenchGroup = {
  name: 'session store round trip',
  cases: [
    {
      name: ECHO,
      calls: 500,
      warmup: 50,
      once: async () => {
        const text = `probe ${++n}`;
        await callOk(clients[ECHO] as Client, 'echo', { text }, text);
        await callOk(clients[ECHO] as Client, 'echo', { text }, text);
      },
    },
    { name: SET_GET_10, calls: 500, warmup: 50, once: setGet(SET_GET_10) },
    { name: SET_GET_10K, calls: 500, warmup: 50, once: setGet(SET_GET_10K) },
  ],
  ratios: [
    { a: SET_GET_10, b: ECHO, as: 'slower', target: { max: 1.15 } },
    { a: SET_GET_10K, b: SET_GET_10, as: 'slower', target: { max: 1.2 } },
  ],
  setup: async () => {
    const s = await acquireServers();
    clients[ECHO] = await mcpClient(s.echo, 'roundtrip');
    clients[SET_GET_10] = await mcpClient(s.mcc10, 'roundtrip');
    clients[SET_GET_10K] = await mcpClient(s.mcc10k, 'roundtrip');
  },
  teardown: async () => {
    for (const c of Object.values(clients)) await c?.close();
    await releaseServers();
  },
};
