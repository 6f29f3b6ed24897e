// What traces cost a session store round trip (set_session then
// get_session through `mcc serve`), measured side by side:
// - traces off (no OTLP endpoint) against traces on, exporting every span
//   to a sink (an HTTP server that takes OTLP/JSON and drops it);
// - traces off against a build without the tracing layer, when
//   BENCH_TRACES_BASE=<its cli.js> names one (wall time and server CPU,
//   shown: their run-to-run noise here is larger than the 2% budget);
// - the no-op hooks themselves: those a set+get passes through (two HTTP
//   requests, two tool calls, one store write and one read), timed in a
//   tight loop in this process, where nothing else blurs them, as a share
//   of the server CPU of one
//   set+get: the figure that carries the 2% budget.
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { verdict, type BenchCase, type BenchGroup, type Figure, type Ratio } from './harness';
import { callOk, mcpClient, procCpuMs, stopAll, TOKEN, type StartedServer } from './store-servers';
import { CLI, FIXTURES, startServe, tempDir } from '../integration/serve-process';
import { describeMcpRequest, traceHttpRequest } from '../../src/core/trace/request-span';
import { storeSpan } from '../../src/core/trace/store-span';
import { tracedCall } from '../../src/core/server/traced-call';
import { tracing } from '../../src/core/trace/tracing';
import type { ConnectionContext, HandlerExtra } from '../../src/core/server/connection-context';
import type { Principal } from '../../src/core/identity';

const OFF = 'set+get (mcc serve, traces off)';
const ON = 'set+get (mcc serve, traces on, to a sink)';
const BASE = 'set+get (mcc serve without the tracing layer)';
// `--quick` keeps the whole bench under a minute: fewer pairs and loops here too.
const QUICK = process.argv.includes('--quick');
const CPU_ROUNDS = QUICK ? 1 : 3;
const CPU_PAIRS = QUICK ? 40 : 100;
const HOOK_LOOPS = QUICK ? 30_000 : 200_000;

const clients = new Map<string, Client>();
const servers: StartedServer[] = [];
const pids = new Map<string, number>();
let sink: { url: string; close(): Promise<void>; exports: number } | undefined;
let n = 0;

function setGet(name: string): () => Promise<void> {
  return async () => {
    const c = clients.get(name);
    if (!c) throw new Error(`${name} is not set up`);
    const value = { n: ++n, note: 'a small value' };
    await callOk(c, 'set_session', { name: 'probe', value }, "Set 'probe'.");
    await callOk(c, 'get_session', { name: 'probe' }, JSON.stringify(value));
  };
}

const base = process.env.BENCH_TRACES_BASE;
const names = [OFF, ON, ...(base ? [BASE] : [])];

/** Server CPU ms per set+get for each server, in interleaved rounds. */
async function serverCpu(): Promise<Map<string, number>> {
  const total = new Map<string, number>(names.map((name) => [name, 0]));
  for (let r = 0; r < CPU_ROUNDS; r++) {
    for (const name of names) {
      const pid = pids.get(name) as number;
      const before = procCpuMs(pid);
      for (let i = 0; i < CPU_PAIRS; i++) await setGet(name)();
      total.set(name, (total.get(name) ?? 0) + procCpuMs(pid) - before);
    }
  }
  return new Map([...total].map(([name, ms]) => [name, ms / (CPU_ROUNDS * CPU_PAIRS)]));
}

/** ms per set+get of the hooks with traces off, less the same loop calling the work directly. */
async function noOpHooksMs(): Promise<number> {
  if (tracing().enabled) throw new Error('the bench process must run with traces off');
  const req = { url: '/mcp', method: 'POST', headers: {} } as IncomingMessage;
  const res = {} as ServerResponse;
  const who: Principal = { user: 'bench', email: '', groups: [], grants: [] };
  const ctx = { principal: who, modern: false } as ConnectionContext;
  const extra = { mcpReq: { _meta: {} } } as unknown as HandlerExtra;
  const work = (): Promise<number> => Promise.resolve(1);
  const hooked = async (): Promise<void> => {
    for (let r = 0; r < 2; r++) {
      await traceHttpRequest(req, res, async (span) => {
        describeMcpRequest(span, req, who, { method: 'tools/call' }, false);
        await tracedCall(ctx, extra, 'set_session', undefined, () => storeSpan(r === 0 ? 'update' : 'get', 'sqlite', work));
      });
    }
  };
  const direct = async (): Promise<void> => {
    for (let r = 0; r < 2; r++) await (async () => void (await work()))();
  };
  const loops = HOOK_LOOPS;
  const time = async (f: () => Promise<void>): Promise<number> => {
    const t = performance.now();
    for (let i = 0; i < loops; i++) await f();
    return (performance.now() - t) / loops;
  };
  await time(hooked); // warm up both
  await time(direct);
  const samples: number[] = [];
  for (let k = 0; k < 3; k++) samples.push((await time(hooked)) - (await time(direct)));
  return Math.max(0, samples.sort((a, b) => a - b)[1] ?? NaN);
}

/** `mcc serve` (this build, or `cli`) on the fixtures' catalog with a store of its own. */
async function startServer(env: NodeJS.ProcessEnv, cli = CLI): Promise<StartedServer> {
  const dir = tempDir('mcc-bench-traces-');
  const h = await startServe(['--tools', `${FIXTURES}/tools.yaml`, '--user', 'bench', '--state', `${dir}/s.json`], { MCC_TOKEN: TOKEN, MCC_DEBUG: '', ...env }, cli);
  h.proc.stderr?.removeAllListeners('data').resume();
  return { url: h.url, pid: h.proc.pid as number, log: () => '', stop: () => h.stop().finally(() => rmSync(dir, { recursive: true, force: true })) };
}

function startSink(): Promise<NonNullable<typeof sink>> {
  let exports = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        get exports() {
          return exports;
        },
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

// Wall time is shown, not judged: on a shared machine its noise is well above 2%; the CPU figures carry the targets.
const ratios: Ratio[] = [{ a: ON, b: OFF, as: 'slower' }, ...(base ? [{ a: OFF, b: BASE, as: 'slower' as const }] : [])];
const cases: BenchCase[] = names.map((name) => ({ name, calls: 300, warmup: 30, once: setGet(name) }));

export const traces: BenchGroup = {
  name: 'traces',
  cases,
  ratios,
  setup: async () => {
    sink = await startSink();
    const envs: Array<[string, NodeJS.ProcessEnv, string | undefined]> = [
      [OFF, { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined }, undefined],
      [ON, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined, OTEL_SDK_DISABLED: undefined }, undefined],
      ...(base ? [[BASE, { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined }, base] as [string, NodeJS.ProcessEnv, string]] : []),
    ];
    for (const [name, env, cli] of envs) {
      const server = await startServer(env, cli);
      servers.push(server);
      pids.set(name, server.pid);
      clients.set(name, await mcpClient(server, 'traces'));
    }
  },
  figures: async (): Promise<Figure[]> => {
    const cpu = await serverCpu();
    const off = cpu.get(OFF) ?? NaN;
    const hooks = await noOpHooksMs();
    const share = hooks / off;
    const figures: Figure[] = [
      { name: `server CPU per set+get: ${names.map((x) => x.replace(/^set\+get \(mcc serve,? ?/, '').replace(/\)$/, '')).join(' / ')}`, value: `${names.map((x) => (cpu.get(x) ?? NaN).toFixed(3)).join(' / ')} ms` },
      { name: 'server CPU, traces on / off', value: `${((cpu.get(ON) ?? NaN) / off).toFixed(3)}x`, number: (cpu.get(ON) ?? NaN) / off },
      { name: 'no-op trace hooks per set+get / its server CPU (traces off)', value: `${(hooks * 1000).toFixed(2)} µs / ${off.toFixed(3)} ms = ${(share * 100).toFixed(3)}%`, number: share, verdict: verdict(share, { max: 0.02 }) },
      { name: 'OTLP exports the sink received', value: String(sink?.exports ?? 0) },
    ];
    if (base) {
      const b = cpu.get(BASE) ?? NaN;
      // Shown, not judged: CPU per pair read in 10 ms ticks, on a shared machine, moves more than 2% from run to run.
      figures.push({ name: 'server CPU, traces off / without the layer (noise: several %)', value: `${(off / b).toFixed(3)}x`, number: off / b });
    }
    return figures;
  },
  teardown: async () => {
    await stopAll(clients, servers);
    await sink?.close();
    sink = undefined;
  },
};
