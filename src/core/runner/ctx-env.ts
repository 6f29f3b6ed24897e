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
import { rmSync, writeFileSync } from 'node:fs';
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
  let used = envEntryBytes(CTX_PREFIX, json);
  if (used <= budget.ctx) vars[CTX_PREFIX] = json;
  else {
    file = writeContextFile(json, dir);
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
  return { vars, dispose: () => (file !== undefined ? rmSync(file, { force: true }) : undefined) };
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
  /** envEntryBytes by variable name. */
  bytes: Map<string, number>;
}
const frozenFacts = new WeakMap<object, FrozenFacts>();

/** What is kept of a frozen object value; undefined for any other value. */
function factsOf(v: unknown): FrozenFacts | undefined {
  if (v === null || typeof v !== 'object' || !Object.isFrozen(v)) return undefined;
  let facts = frozenFacts.get(v);
  if (!facts) frozenFacts.set(v, (facts = { json: JSON.stringify(v), bytes: new Map() }));
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

/** JSON.stringify(store), with the JSON of frozen values reused. */
function storeJson(store: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(store)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    parts.push(`${JSON.stringify(k)}:${jsonOf(v)}`);
  }
  return `{${parts.join(',')}}`;
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
function writeContextFile(json: string, dir: string = tmpdir()): string {
  const file = join(dir, `mcc-ctx-${randomUUID()}.json`);
  try {
    // 'wx': never through a file or link someone else put there.
    writeFileSync(file, json, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    throw new ToolInputError(`the session store is too large for the environment and could not be written to ${file}: ${(e as Error).message}`);
  }
  return file;
}
