// The session store in a subprocess's environment. A store within the
// session limits (1 MiB) never makes a tool fail to start:
// - MCC_CTX: the whole store as JSON while it fits (EnvBudget.ctx); else
//   MCC_CTX_FILE: the path of a private (0600) temporary file holding that
//   JSON, removed when the run ends.
// - MCC_CTX_<NAME>: one per key (strings as they are, anything else as
//   JSON), smallest first, while each fits EnvBudget.entry and all of them
//   EnvBudget.total; `tools` only while its keys fit EnvBudget.tools.
// - MCC_CTX_OMITTED: the keys that got no MCC_CTX_<NAME>, space-separated:
//   too large, over the budget, or a string holding a NUL character (no
//   environment variable can carry one; the JSON escapes it as \u0000).
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, unlinkSync, writevSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envBudget, envEntryBytes, type EnvBudget } from './env-limits';
import { ToolInputError } from '../tool-run/errors';

export const CTX_PREFIX = 'MCC_CTX';
export const CTX_FILE = 'MCC_CTX_FILE';
export const CTX_OMITTED = 'MCC_CTX_OMITTED';
// Store keys are slugs; anything else could not be a variable name.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ContextEnv {
  vars: Record<string, string>;
  /** Removes MCC_CTX_FILE when there is one; safe to call more than once. */
  dispose(): void;
}

interface Candidate {
  key: string;
  name: string;
  value: string;
  bytes: number;
}

export function contextEnv(store: Record<string, unknown>, budget: EnvBudget = envBudget(), dir?: string): ContextEnv {
  const vars: Record<string, string> = {};
  const json = storeJson(store);
  let file: string | undefined;
  let used = Buffer.byteLength(CTX_PREFIX) + json.bytes + 10; // as envEntryBytes counts it
  if (used <= budget.ctx) vars[CTX_PREFIX] = json.text();
  else {
    file = writeContextFile(json.bytesOf(), dir);
    vars[CTX_FILE] = file;
    used = envEntryBytes(CTX_FILE, file);
  }
  const room = budget.total - budget.omitted - used;
  let spent = 0;
  const omitted: string[] = [];
  for (const c of candidates(store)) {
    const cap = c.key === 'tools' ? Math.min(budget.tools, budget.entry) : budget.entry;
    if (c.value.includes('\0') || c.bytes > cap || spent + c.bytes > room) {
      omitted.push(c.key);
      continue;
    }
    vars[c.name] = c.value;
    spent += c.bytes;
  }
  if (omitted.length > 0) vars[CTX_OMITTED] = nameList(omitted.sort(), budget.omitted);
  return { vars, dispose: () => (file !== undefined ? removeFile(file) : undefined) };
}

// Smallest first, so that a few large values never crowd out the small ones.
function candidates(store: Record<string, unknown>): Candidate[] {
  const out: Candidate[] = [];
  for (const [key, v] of Object.entries(store)) {
    if (!ENV_NAME.test(key) || v === undefined) continue;
    const name = `${CTX_PREFIX}_${key.toUpperCase()}`;
    const value = typeof v === 'string' ? v : jsonOf(v);
    out.push({ key, name, value, bytes: frozenBytes(name, v, value) });
  }
  return out.sort((a, b) => a.bytes - b.bytes || (a.key < b.key ? -1 : 1));
}

// The identity keys are frozen and the same objects on every call until the
// catalog changes (access-cache.ts); with thousands of tools, turning their
// list into JSON and counting its bytes again for each run cost more than
// the spawn. Frozen values cannot change, so their JSON is kept.
interface FrozenFacts {
  json: string;
  /** The JSON's UTF-8 bytes, made the first time the store goes to a file. */
  utf8?: Buffer;
  jsonBytes: number;
  /** envEntryBytes by variable name. */
  bytes: Map<string, number>;
}
const frozenFacts = new WeakMap<object, FrozenFacts>();

/** What is kept of a frozen object value; undefined for any other value. */
function factsOf(v: unknown): FrozenFacts | undefined {
  if (v === null || typeof v !== 'object' || !Object.isFrozen(v)) return undefined;
  let facts = frozenFacts.get(v);
  if (!facts) {
    const json = JSON.stringify(v);
    frozenFacts.set(v, (facts = { json, jsonBytes: Buffer.byteLength(json), bytes: new Map() }));
  }
  return facts;
}

function jsonOf(v: unknown): string {
  return factsOf(v)?.json ?? JSON.stringify(v);
}

function frozenBytes(name: string, v: unknown, value: string): number {
  const facts = factsOf(v);
  if (!facts) return envEntryBytes(name, value);
  let bytes = facts.bytes.get(name);
  if (bytes === undefined) facts.bytes.set(name, (bytes = envEntryBytes(name, value)));
  return bytes;
}

/** JSON.stringify(store) in parts, with its size; a frozen value's JSON (and its bytes) is reused. */
interface StoreJson {
  bytes: number;
  text(): string;
  /** The UTF-8 bytes in pieces, without encoding (or copying) the frozen values again. */
  bytesOf(): Buffer[];
}

// With thousands of tools the JSON is a few hundred KiB: joining it into one
// string and encoding that for the file cost more than the spawn, so the
// parts go to the file as bytes, the frozen ones as kept.
function storeJson(store: Record<string, unknown>): StoreJson {
  const parts: Array<string | FrozenFacts> = [];
  let bytes = 1;
  for (const [k, v] of Object.entries(store)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    const head = `${parts.length > 0 ? ',' : '{'}${JSON.stringify(k)}:`;
    const facts = factsOf(v);
    const tail = facts ?? JSON.stringify(v);
    parts.push(head, tail);
    bytes += Buffer.byteLength(head) + (typeof tail === 'string' ? Buffer.byteLength(tail) : tail.jsonBytes);
  }
  if (parts.length === 0) bytes += 1; // '{' of an empty object
  return {
    bytes,
    text: () => `${parts.length === 0 ? '{' : ''}${parts.map((p) => (typeof p === 'string' ? p : p.json)).join('')}}`,
    bytesOf: () => {
      const bufs = parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : (p.utf8 ??= Buffer.from(p.json))));
      return [...(parts.length === 0 ? [Buffer.from('{')] : []), ...bufs, Buffer.from('}')];
    },
  };
}

function nameList(names: string[], max: number): string {
  const all = names.join(' ');
  if (envEntryBytes(CTX_OMITTED, all) <= max) return all;
  const room = max - envEntryBytes(CTX_OMITTED, ' ...');
  let text = '';
  for (const n of names) {
    const next = text ? `${text} ${n}` : n;
    if (Buffer.byteLength(next, 'utf8') > room) break;
    text = next;
  }
  return `${text} ...`.trimStart();
}

// tmpdir() only here: it reads the environment, which costs more than the rest of a small store.
function writeContextFile(json: Buffer[], dir: string = tmpdir()): string {
  const file = join(dir, `mcc-ctx-${randomUUID()}.json`);
  try {
    // 'wx': never through a file or link someone else put there.
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeAll(fd, json);
    } catch (e) {
      removeFile(file); // e.g. a full disk: no partial file is left behind
      throw e;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new ToolInputError(`the session store is too large for the environment and could not be written to ${file}: ${(e as Error).message}`);
  }
  return file;
}

function writeAll(fd: number, bufs: Buffer[]): void {
  const left = bufs.filter((b) => b.length > 0);
  while (left.length > 0) {
    let n = writevSync(fd, left);
    // A short write (rare on a file): go on from where it stopped.
    while (left.length > 0 && n >= (left[0]).length) n -= (left.shift() as Buffer).length;
    if (n > 0 && left.length > 0) left[0] = (left[0]).subarray(n);
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
