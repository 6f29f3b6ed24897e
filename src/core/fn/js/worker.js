'use strict';
// The worker thread that runs JavaScript fn tools, one call at a time, off
// the host's event loop. Plain CommonJS so it can be shipped as a file next
// to the bundles (scripts/build.mjs copies it) and loaded as it is by tsc
// builds. Protocol (host <-> worker, via parentPort):
//   host:   { type: 'call', id, modulePath, exportName, mtimeMs, params, context, env }
//           { type: 'probe', id, modulePath, exportName, mtimeMs, env }
// The worker starts with an empty process.env; a job's env (the tool's own)
// is in place while its module loads and while the function runs.
//   worker: { type: 'output', id, stream, data }
//           { type: 'result', id, ok: true, json, contextJson?, contextError? }
//           { type: 'result', id, ok: false, message, stack, stage }
const { parentPort } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const path = require('node:path');
const fs = require('node:fs');

/** modulePath -> { mtimeMs, exports } */
const loaded = new Map();
let currentId = null;

function send(msg) {
  parentPort.postMessage(msg);
}

// Console output goes through these writes; sending it over the port keeps
// it ordered with the result and tagged with the call that printed it.
for (const stream of ['stdout', 'stderr']) {
  const target = process[stream];
  target.write = function write(chunk, encoding, cb) {
    const data = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    send({ type: 'output', id: currentId, stream, data });
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
}

function packageType(file) {
  let dir = path.dirname(file);
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        return JSON.parse(fs.readFileSync(pj, 'utf8')).type === 'module' ? 'module' : 'commonjs';
      } catch {
        return 'commonjs';
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return 'commonjs';
    dir = up;
  }
}

function isEsm(file) {
  if (file.endsWith('.mjs')) return true;
  if (file.endsWith('.cjs')) return false;
  return packageType(file) === 'module';
}

// Loaded once per worker; a changed mtime loads the file again (hot reload).
// ESM has no cache to clear, so a new URL query makes a new module instance.
async function load(file, mtimeMs) {
  const hit = loaded.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.exports;
  let exports;
  if (isEsm(file)) {
    exports = await import(`${pathToFileURL(file).href}?mtime=${mtimeMs}`);
  } else {
    delete require.cache[file];
    exports = require(file);
  }
  loaded.set(file, { mtimeMs, exports });
  return exports;
}

function pick(exports, name, file) {
  let fn;
  if (name === 'default' && typeof exports === 'function') fn = exports;
  else if (exports !== null && exports !== undefined) fn = exports[name];
  // An ESM view of a CommonJS module puts module.exports under default.
  if (fn === undefined && exports && exports.default && typeof exports.default === 'object') fn = exports.default[name];
  if (fn === undefined) {
    const names = exports && typeof exports === 'object' ? Object.keys(exports).join(', ') : '';
    throw new Error(`${file} has no export '${name}'${names ? ` (it exports: ${names})` : ''}`);
  }
  if (typeof fn !== 'function') throw new Error(`export '${name}' of ${file} is a ${typeOf(fn)}, not a function`);
  return fn;
}

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

// Why a value is not JSON, or undefined when it is. Stricter than
// JSON.stringify, which silently turns NaN, Map or a function into
// something else: the caller should hear about it instead.
function jsonProblem(v, where, seen) {
  if (v === null) return undefined;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(v) ? undefined : `${where} is ${String(v)}`;
    case 'undefined':
      return `${where} is undefined`;
    case 'bigint':
      return `${where} is a BigInt (${String(v)}n); return a number or a string`;
    case 'function':
      return `${where} is a function`;
    case 'symbol':
      return `${where} is a symbol`;
    default:
      break;
  }
  if (typeof v.toJSON === 'function') return jsonProblem(v.toJSON(), where, seen);
  if (seen.has(v)) return `${where} refers back to itself (a cycle)`;
  seen.add(v);
  try {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const p = jsonProblem(v[i], `${where}[${i}]`, seen);
        if (p) return p;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (proto && proto.constructor && proto.constructor.name) || 'object';
      return `${where} is a ${kind}; only plain objects, arrays, strings, finite numbers, booleans and null are JSON`;
    }
    for (const key of Object.keys(v)) {
      // JSON leaves out undefined properties; that loses nothing the caller set.
      if (v[key] === undefined) continue;
      const p = jsonProblem(v[key], `${where}.${key}`, seen);
      if (p) return p;
    }
    return undefined;
  } finally {
    seen.delete(v);
  }
}

function toJson(v, what) {
  const problem = jsonProblem(v, what, new Set());
  if (problem) throw Object.assign(new Error(`not JSON-serialisable: ${problem}`), { notJson: true });
  return JSON.stringify(v);
}

// The job's environment replaces the worker's for the duration of the job.
function swapEnv(env) {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env || {});
  return () => {
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, saved);
  };
}

function failure(id, stage, e) {
  const err = e instanceof Error ? e : new Error(`threw a non-Error value: ${safeString(e)}`);
  return { type: 'result', id, ok: false, stage, message: err.message, stack: cleanStack(err.stack || err.message) };
}

// The tool's frames only: no cache-busting query, no frames of this file.
function cleanStack(stack) {
  return String(stack)
    .replace(/\?mtime=[\d.]+/g, '')
    .split('\n')
    .filter((line) => !line.includes(__filename))
    .join('\n');
}

function safeString(v) {
  try {
    return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

async function call(msg) {
  const restore = swapEnv(msg.env);
  let fn;
  let value;
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
  let json;
  try {
    json = toJson(value === undefined ? null : value, 'value');
  } catch (e) {
    return failure(msg.id, 'result', e);
  }
  const out = { type: 'result', id: msg.id, ok: true, json };
  try {
    out.contextJson = toJson(context, 'context');
  } catch (e) {
    out.contextError = e.message;
  }
  return out;
}

async function probe(msg) {
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

parentPort.on('message', (msg) => {
  currentId = msg.id;
  const run = msg.type === 'probe' ? probe(msg) : call(msg);
  run.then(send, (e) => send(failure(msg.id, 'call', e)));
});
