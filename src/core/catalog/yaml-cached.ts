// The fast YAML read through a parse cache: an unchanged file (same text,
// same reader) is restored from the JSON an earlier start stored, data and
// tree of lines alike, and js-yaml only runs for new text.
import { createHash } from 'node:crypto';
import type { ParseCache } from '../cache/parse-cache';
import { fastYamlOf, parseYamlFast, SHALLOW_DEPTH, treeBuilderSource, type FastYaml, type PosNode } from './yaml-fast';
import { version as jsYamlVersion } from 'js-yaml/package.json';

// Part of every key: a change to what is stored, or to how YAML is read
// (the reader's version, its schema, the depth and the code of the tree of
// lines), must not meet entries written by another build.
let format: string | undefined;
const formatOf = (): string => (format ??= `mcc-yaml-fast/1 js-yaml/${jsYamlVersion} core+merge depth-${SHALLOW_DEPTH}\n${treeBuilderSource()}`);

interface Stored {
  root?: PosNode;
  data: unknown;
}

export function parseYamlCached(text: string, cache: ParseCache | undefined): FastYaml | undefined {
  if (!cache) return parseYamlFast(text);
  const key = parseCacheKey(text);
  const stored = restore(cache.get(key));
  if (stored) return fastYamlOf(text, stored.data, stored.root);
  const fast = parseYamlFast(text);
  const form = fast ? storedFormOf(fast) : undefined;
  if (form !== undefined) cache.set(key, form);
  return fast;
}

/** The parse cache's key of `text`, read by this build. */
export function parseCacheKey(text: string): string {
  return createHash('sha256').update(formatOf()).update('\0').update(text).digest('hex');
}

/**
 * What the parse cache stores for `text` (from `cache` when it holds it, else
 * parsed now and stored), or undefined when the careful path must read it.
 */
export function storedParse(text: string, cache: ParseCache | undefined): string | undefined {
  const key = parseCacheKey(text);
  const held = cache?.get(key);
  // A damaged entry is found out where it is restored, and replaced there.
  if (held !== undefined) return held;
  const fast = parseYamlFast(text);
  const form = fast ? storedFormOf(fast) : undefined;
  if (form !== undefined) cache?.set(key, form);
  return form;
}

/** Only what JSON gives back unchanged is stored (.inf, .nan and -0 are not). */
function storedFormOf(fast: FastYaml): string | undefined {
  if (!jsonExact(fast.data)) return undefined;
  return `{"root":${JSON.stringify(fast.root ?? null, withoutStart)},"data":${JSON.stringify(fast.data)}}`;
}

function withoutStart(this: unknown, key: string, value: unknown): unknown {
  return key === 'start' ? undefined : value;
}

function restore(text: string | undefined): Stored | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { root?: PosNode | null; data?: unknown };
    if (typeof parsed !== 'object' || parsed === null || !('data' in parsed)) return undefined;
    return { data: parsed.data, ...(parsed.root ? { root: parsed.root } : {}) };
  } catch {
    // A damaged entry is a miss; the next write replaces it.
    return undefined;
  }
}

/** True when JSON.parse(JSON.stringify(v)) deep-equals v. */
function jsonExact(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every(jsonExact);
  if (typeof v === 'object') return Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every(jsonExact);
  return false;
}
