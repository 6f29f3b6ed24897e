// Calls at catalog scale, each with its floor measured in the same rounds:
// - execute of `exec: "true"` through `mcc serve` (headless default: pipes)
//   against a raw spawn of the same `/bin/sh -c true` plus one call of the
//   bare SDK echo server (what any MCP tool that runs a process must cost);
// - the same execute with 5,000 tools in the catalog against 4, and against
//   the floor, on pipes and in terminals (a spawn must not cost more in a
//   larger server: the spawner starts every process, spawner.ts);
// - the same execute with --metrics (each call counted and timed) against without;
// - search over 5,000 tools against the echo call.
import { spawn } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BenchGroup } from './harness';
import { writeCatalogs } from './catalogs';
import { startEcho, startMcc, callOk, mcpClient, stopAll, type BenchServer, type StartedServer } from './store-servers';

const ECHO = 'echo (bare SDK server)';
const FLOOR = 'floor: raw spawn of sh -c true + echo';
const EXEC_4 = 'execute true (mcc serve, 4 tools)';
const EXEC_PTY = 'execute true (mcc serve --pty, as the editor runs it)';
const EXEC_5K = 'execute true (mcc serve, 5,000 tools)';
const EXEC_METRICS = 'execute true (mcc serve --metrics, 4 tools)';
const EXEC_PTY_5K = 'execute true (mcc serve --pty, 5,000 tools)';
const SEARCH_5K = 'search (mcc serve, 5,000 tools)';
const QUERY = 'restart kubernetes deployment';

const clients = new Map<string, Client>();
const servers: StartedServer[] = [];
let catalogs: ReturnType<typeof writeCatalogs> | undefined;
let n = 0;

function client(name: string): Client {
  const c = clients.get(name);
  if (!c) throw new Error(`${name} is not set up`);
  return c;
}

function rawSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`sh exited with ${code}`))));
  });
}

async function echo(name: string): Promise<void> {
  const text = `probe ${++n}`;
  await callOk(client(name), 'echo', { text }, text);
}

async function connectTo(name: string, server: BenchServer): Promise<void> {
  clients.set(name, await mcpClient(server, `bench-${clients.size}`));
}

export const calls: BenchGroup = {
  name: 'calls at catalog scale',
  async setup() {
    catalogs = writeCatalogs([4, 5000]);
    const started = await Promise.all([
      startEcho(),
      startMcc({ tools: catalogs.paths.get(4) as string }),
      startMcc({ tools: catalogs.paths.get(5000) as string }),
      startMcc({ tools: catalogs.paths.get(4) as string, args: ['--pty'] }),
      startMcc({ tools: catalogs.paths.get(4) as string, args: ['--metrics', '127.0.0.1:0'] }),
      startMcc({ tools: catalogs.paths.get(5000) as string, args: ['--pty'] }),
    ]);
    servers.push(...started);
    const [echoServer, small, big, pty, metered, bigPty] = started;
    await connectTo(ECHO, echoServer);
    await connectTo(FLOOR, echoServer);
    await connectTo(EXEC_4, small);
    await connectTo(EXEC_PTY, pty);
    await connectTo(EXEC_5K, big);
    await connectTo(EXEC_PTY_5K, bigPty);
    await connectTo(SEARCH_5K, big);
    await connectTo(EXEC_METRICS, metered);
  },
  async teardown() {
    await stopAll(clients, servers);
    catalogs?.cleanup();
  },
  cases: [
    { name: ECHO, calls: 500, warmup: 50, once: () => echo(ECHO) },
    {
      name: FLOOR,
      calls: 300,
      warmup: 30,
      once: async () => {
        await rawSpawn();
        await echo(FLOOR);
      },
    },
    { name: EXEC_4, calls: 300, warmup: 30, once: () => callOk(client(EXEC_4), 'execute', { key: 'bench.noop', params: {} }) },
    { name: EXEC_PTY, calls: 300, warmup: 30, once: () => callOk(client(EXEC_PTY), 'execute', { key: 'bench.noop', params: {} }) },
    { name: EXEC_5K, calls: 300, warmup: 30, once: () => callOk(client(EXEC_5K), 'execute', { key: 'bench.noop', params: {} }) },
    { name: EXEC_METRICS, calls: 300, warmup: 30, once: () => callOk(client(EXEC_METRICS), 'execute', { key: 'bench.noop', params: {} }) },
    { name: EXEC_PTY_5K, calls: 300, warmup: 30, once: () => callOk(client(EXEC_PTY_5K), 'execute', { key: 'bench.noop', params: {} }) },
    { name: SEARCH_5K, calls: 300, warmup: 30, once: () => callOk(client(SEARCH_5K), 'search', { query: QUERY }) },
  ],
  ratios: [
    { a: EXEC_4, b: FLOOR, as: 'slower', target: { max: 1.3 } },
    { a: EXEC_PTY, b: FLOOR, as: 'slower' },
    { a: EXEC_5K, b: EXEC_4, as: 'slower', target: { max: 1.05 } },
    { a: EXEC_5K, b: FLOOR, as: 'slower', target: { max: 1.2 } },
    { a: EXEC_PTY_5K, b: EXEC_PTY, as: 'slower', target: { max: 1.05 } },
    { a: EXEC_METRICS, b: EXEC_4, as: 'slower', target: { max: 1.1 } },
    { a: SEARCH_5K, b: ECHO, as: 'slower', by: 'p50', target: { max: 3 } },
  ],
};
