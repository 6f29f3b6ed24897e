// The worker thread that runs JavaScript fn tools, one call at a time, off
// the host's event loop. Its own entry: bundled as dist/worker.js by
// scripts/build.mjs, compiled beside the other modules by tsc. Protocol
// (host <-> worker, via parentPort):
//   host:   { type: 'call', id, modulePath, exportName, mtimeMs, params, context, env }
//           { type: 'probe', id, modulePath, exportName, mtimeMs, env }
// The worker starts with an empty process.env; a job's env (the tool's own)
// is in place while its module loads and while the function runs.
//   worker: { type: 'output', id, stream, data }
//           { type: 'result', id, ok: true, json, contextJson?, contextError? }
//           { type: 'result', id, ok: false, message, stack, stage }
import { parentPort } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { jsonProblem } from '../../json/json-value';
import type { JsJob } from './worker-pool';

/** A job as the pool sends it (worker-pool.ts), with its id. */
type JobMessage = JsJob & { id: number };

type Stage = 'load' | 'call' | 'result';
type ToolFunction = (params: unknown, context: unknown) => unknown;
type Answer =
  | { type: 'result'; id: number; ok: true; json: string; contextJson?: string; contextError?: string }
  | { type: 'result'; id: number; ok: false; stage: Stage; message: string; stack: string };

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread only');

/** modulePath -> what it exported, at which mtime */
const loaded = new Map<string, { mtimeMs: number; exports: unknown }>();
let currentId: number | null = null;

function send(msg: unknown): void {
  port?.postMessage(msg);
}

// Console output goes through these writes; sending it over the port keeps
// it ordered with the result and tagged with the call that printed it.
for (const stream of ['stdout', 'stderr'] as const) {
  const write = (chunk: string | Uint8Array, encoding?: unknown, cb?: unknown): boolean => {
    const data = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    send({ type: 'output', id: currentId, stream, data });
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
  process[stream].write = write;
}

function packageType(file: string): 'module' | 'commonjs' {
  let dir = path.dirname(file);
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        return (JSON.parse(fs.readFileSync(pj, 'utf8')) as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
      } catch {
        return 'commonjs';
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return 'commonjs';
    dir = up;
  }
}

function isEsm(file: string): boolean {
  if (file.endsWith('.mjs')) return true;
  if (file.endsWith('.cjs')) return false;
  return packageType(file) === 'module';
}

// Loaded once per worker; a changed mtime loads the file again (hot reload).
// ESM has no cache to clear, so a new URL query makes a new module instance.
async function load(file: string, mtimeMs: number): Promise<unknown> {
  const hit = loaded.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.exports;
  let exports: unknown;
  if (isEsm(file)) {
    exports = await import(`${pathToFileURL(file).href}?mtime=${mtimeMs}`);
  } else {
    delete require.cache[file];
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    exports = require(file);
  }
  loaded.set(file, { mtimeMs, exports });
  return exports;
}

function pick(exports: unknown, name: string, file: string): ToolFunction {
  const bag = exports as Record<string, unknown> | null | undefined;
  let fn: unknown;
  if (name === 'default' && typeof exports === 'function') fn = exports;
  else if (bag !== null && bag !== undefined) fn = bag[name];
  // An ESM view of a CommonJS module puts module.exports under default.
  const inner = bag?.default;
  if (fn === undefined && inner && typeof inner === 'object') fn = (inner as Record<string, unknown>)[name];
  if (fn === undefined) {
    const names = bag && typeof bag === 'object' ? Object.keys(bag).join(', ') : '';
    throw new Error(`${file} has no export '${name}'${names ? ` (it exports: ${names})` : ''}`);
  }
  if (typeof fn !== 'function') throw new Error(`export '${name}' of ${file} is a ${typeOf(fn)}, not a function`);
  return fn as ToolFunction;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

// The one JSON rule of every value the runtime takes (json/json-value.ts):
// the caller hears what is wrong instead of JSON.stringify's silent changes.
function toJson(v: unknown, what: string): string {
  const problem = jsonProblem(v, what);
  if (problem) throw new Error(`not JSON-serialisable: ${problem}`);
  return JSON.stringify(v);
}

/** The context as the tool left it; a key set to undefined is absent, as it would be after JSON. */
function contextToJson(context: Record<string, unknown> | undefined): string {
  const present = Object.fromEntries(Object.entries(context ?? {}).filter(([, v]) => v !== undefined));
  return toJson(present, 'context');
}

// The job's environment replaces the worker's for the duration of the job.
function swapEnv(env: Record<string, string> | undefined): () => void {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env ?? {});
  return () => {
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, saved);
  };
}

function failure(id: number, stage: Stage, e: unknown): Answer {
  const err = e instanceof Error ? e : new Error(`threw a non-Error value: ${safeString(e)}`);
  return { type: 'result', id, ok: false, stage, message: err.message, stack: cleanStack(err.stack ?? err.message) };
}

// The tool's frames only: no cache-busting query, no frames of this file.
function cleanStack(stack: string): string {
  return String(stack)
    .replace(/\?mtime=[\d.]+/g, '')
    .split('\n')
    .filter((line) => !line.includes(__filename))
    .join('\n');
}

function safeString(v: unknown): string {
  try {
    return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    return String(v);
  }
}

async function call(msg: JobMessage): Promise<Answer> {
  const restore = swapEnv(msg.env);
  let fn: ToolFunction;
  let value: unknown;
  const context = msg.context;
  try {
    try {
      fn = pick(await load(msg.modulePath, msg.mtimeMs), msg.exportName, msg.modulePath);
    } catch (e) {
      return failure(msg.id, 'load', e);
    }
    try {
      value = await fn(msg.params, context);
    } catch (e) {
      return failure(msg.id, 'call', e);
    }
  } finally {
    restore();
  }
  let json: string;
  try {
    json = toJson(value === undefined ? null : value, 'value');
  } catch (e) {
    return failure(msg.id, 'result', e);
  }
  try {
    return { type: 'result', id: msg.id, ok: true, json, contextJson: contextToJson(context) };
  } catch (e) {
    return { type: 'result', id: msg.id, ok: true, json, contextError: e instanceof Error ? e.message : String(e) };
  }
}

async function probe(msg: JobMessage): Promise<Answer> {
  const restore = swapEnv(msg.env);
  try {
    pick(await load(msg.modulePath, msg.mtimeMs), msg.exportName, msg.modulePath);
    return { type: 'result', id: msg.id, ok: true, json: 'null' };
  } catch (e) {
    return failure(msg.id, 'load', e);
  } finally {
    restore();
  }
}

port.on('message', (msg: JobMessage) => {
  currentId = msg.id;
  const run = msg.type === 'probe' ? probe(msg) : call(msg);
  run.then(send, (e: unknown) => send(failure(msg.id, 'call', e)));
});
