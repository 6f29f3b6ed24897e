// The servers the store figures measure, started once for every store group:
// `mcc serve` on its default SQLite store with 10 and with 10,000 live
// buckets and on a Redis store, and the bare SDK echo server as the floor
// (alone, with one fdatasync per call, with one Redis round trip per call, and
// on the older v1 SDK). All run as processes of their own, so /proc/<pid>/io
// counts the server's writes alone.
// BENCH_CLI=<path to cli.js> measures another build (e.g. the previous one).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bucketIdOf } from '../../src/core/session/bucket-id';
import { CLI, FIXTURES, startServe, type ServeHandle } from '../integration/serve-process';
import { startRedis } from '../support/redis-server';

export const TOKEN = 'bench-token-0123456789abcdef';

export interface BenchServer {
  url: string;
  pid: number;
}

export interface StoreServers {
  /** The bare echo server on the SDK the product runs on (v2). */
  echo: BenchServer;
  /** The same on the v1 SDK, for comparison. */
  echoV1: BenchServer;
  /** Echo plus a 4 KiB write and its fdatasync per call, in the folder the stores use. */
  echoFsync: BenchServer;
  /** Echo plus one Redis GET per call, against `redis`. */
  echoRedis: BenchServer;
  mcc10: BenchServer;
  mcc10k: BenchServer;
  /** mcc serve on a Redis store, against `redis`. */
  mccRedis: BenchServer;
}

let started: Promise<StoreServers> | undefined;
let users = 0;
const stops: Array<() => Promise<unknown>> = [];
const dirs: string[] = [];

/** The shared servers; each acquire() is matched by a release(), and the last one stops them. */
export function acquireServers(): Promise<StoreServers> {
  users++;
  started ??= (async () => {
    const redis = await startRedis();
    // Stopped last (stops run in reverse), after the servers that use it.
    stops.push(() => redis.stop());
    const dir = mkdtempSync(join(tmpdir(), 'mcc-bench-'));
    dirs.push(dir);
    return {
      echo: await sharedEcho(),
      echoV1: await sharedEcho('v1'),
      echoFsync: await sharedEcho('--fsync', join(dir, 'fsync-probe')),
      echoRedis: await sharedEcho('--redis', String(redis.port)),
      mcc10: await startMccWithBuckets(10),
      mcc10k: await startMccWithBuckets(10_000),
      mccRedis: await shared(startMcc({ tools: join(FIXTURES, 'tools.yaml'), args: ['--store', redis.url] })),
    };
  })();
  return started;
}

async function shared(starting: Promise<StartedServer>): Promise<BenchServer> {
  const server = await starting;
  stops.push(server.stop);
  return server;
}

function sharedEcho(...args: string[]): Promise<BenchServer> {
  return shared(startEcho({}, args));
}

export async function releaseServers(): Promise<void> {
  if (--users > 0) return;
  started = undefined;
  for (const stop of stops.splice(0).reverse()) await stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** mcc serve whose store starts with `buckets` live buckets (imported from a version 1 file, which every version reads). */
async function startMccWithBuckets(buckets: number): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-bench-'));
  dirs.push(dir);
  const now = Date.now();
  const all: Record<string, unknown> = {};
  for (let i = 0; i < buckets; i++) {
    const sessionKey = `filler-${i}`;
    all[bucketIdOf('bench', sessionKey)] = { user: 'bench', sessionKey, vars: { n: i, note: 'a small value', hosts: ['a', 'b'] }, createdAt: now, lastUsed: now };
  }
  writeFileSync(join(dir, 'sessions.json'), JSON.stringify({ version: 1, buckets: all }));
  const server = await startMcc({ tools: join(FIXTURES, 'tools.yaml'), args: ['--state', join(dir, 'sessions.json')] });
  stops.push(server.stop);
  return server;
}

export interface StartedServer extends BenchServer {
  stop: () => Promise<unknown>;
  /** What it logged, when started with keepLog (else empty). */
  log: () => string;
}

/**
 * `mcc serve --tools <tools>` as user bench, in its default modes (the
 * default store under a new folder unless `args` names one), with the
 * bench's token; BENCH_CLI=<cli.js> runs another build.
 */
export async function startMcc(o: { tools: string; args?: string[]; env?: NodeJS.ProcessEnv; keepLog?: boolean }): Promise<StartedServer> {
  const args = o.args ?? [];
  const named = args.includes('--store') || args.includes('--state');
  const dir = named ? undefined : mkdtempSync(join(tmpdir(), 'mcc-bench-'));
  const h: ServeHandle = await startServe(
    ['--tools', o.tools, '--user', 'bench', ...(dir ? ['--state', join(dir, 'sessions.json')] : []), ...args],
    { MCC_TOKEN: TOKEN, MCC_DEBUG: '', ...o.env },
    process.env.BENCH_CLI ?? CLI,
  );
  if (!o.keepLog) h.proc.stderr?.removeAllListeners('data').resume();
  return {
    url: h.url,
    pid: h.proc.pid as number,
    log: () => (o.keepLog ? h.stderr() : ''),
    stop: async () => {
      await h.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bare SDK echo server (echo-server.ts, `args` as it reads them) as a process of its own. */
export async function startEcho(env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<StartedServer> {
  const proc: ChildProcess = spawn(process.execPath, [join(__dirname, 'echo-server.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const line = await new Promise<string>((resolve, reject) => {
    proc.stdout?.once('data', (d: Buffer) => resolve(d.toString()));
    proc.once('exit', (code) => reject(new Error(`echo server exited with ${code}`)));
  });
  const stop = (): Promise<void> =>
    new Promise<void>((r) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return r();
      proc.once('exit', () => r());
      proc.kill('SIGTERM');
    });
  return { url: (JSON.parse(line) as { url: string }).url, pid: proc.pid as number, stop, log: () => '' };
}

/** The same client code for every server: the SDK's Client over Streamable HTTP. */
export async function mcpClient(server: BenchServer, sessionKey: string): Promise<Client> {
  const client = new Client({ name: 'mcc-bench', version: '1' });
  const headers = { Authorization: `Bearer ${TOKEN}`, 'X-MCC-Session-Key': sessionKey };
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  return client;
}

/** Calls a tool; rejects unless it answered `expected` (when given) without error. */
export async function callOk(client: Client, name: string, args: Record<string, unknown>, expected?: string): Promise<void> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  if (r.isError || (expected !== undefined && text !== expected)) throw new Error(`${name} answered ${r.isError ? 'an error' : 'unexpectedly'}: ${text}`);
}

/** CPU time the process has used, in ms (user + system, from /proc/<pid>/stat). */
export function procCpuMs(pid: number): number {
  // Fields after the command name: state is 3rd, utime and stime are the 14th and 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** USER_HZ, which Linux fixes at 100 for /proc. */
const CLOCK_TICKS = 100;

/** The server's I/O counters: bytes it passed to write() and bytes it sent to storage. */
export function procIo(pid: number): { wchar: number; writeBytes: number } {
  const text = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { wchar: field('wchar'), writeBytes: field('write_bytes') };
}

/** Closes a group's clients, then stops its servers (each whatever the others do), leaving both lists empty. */
export async function stopAll(clients: Map<string, Client>, servers: StartedServer[]): Promise<void> {
  await Promise.allSettled([...clients.values()].map((c) => c.close()));
  clients.clear();
  await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
}
