// A cache of parsed catalog files, keyed by a hash of their text, so a start
// with an unchanged catalog reads JSON instead of running the YAML parser
// (cold, it was most of a large catalog's load).
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDirFromEnv, privateDir } from './cache-dir';
import { readOwnFile, writeWhole } from './cache-file';

export interface ParseCache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

const KEY = /^[0-9a-f]{16,128}$/;

// Enough for a catalog of many files (a folder, a pattern) to be held whole:
// a limit below the files one load reads would evict each entry just before
// it is asked for again.
const MAX_ENTRIES = 1024;
// Pruning lists the folder: once per this many writes, not on each.
const PRUNE_EVERY = 64;

export interface ParseCacheLimits {
  maxEntries: number;
  pruneEvery: number;
}

/** One file per entry in a private directory; the least recently used go past `maxEntries`. */
export class DirParseCache implements ParseCache {
  private writes = 0;

  private constructor(
    private readonly dir: string,
    private readonly limits: ParseCacheLimits,
  ) {}

  /** A cache in `dir`, or undefined when `dir` cannot be made private to this user. */
  static open(dir: string, limits: Partial<ParseCacheLimits> = {}): DirParseCache | undefined {
    const ok = privateDir(dir);
    return ok ? new DirParseCache(ok, { maxEntries: MAX_ENTRIES, pruneEvery: PRUNE_EVERY, ...limits }) : undefined;
  }

  get(key: string): string | undefined {
    if (!KEY.test(key)) return undefined;
    return readOwnFile(join(this.dir, `${key}.json`))?.toString('utf8');
  }

  set(key: string, value: string): void {
    if (!KEY.test(key)) return;
    if (writeWhole(join(this.dir, `${key}.json`), value) && this.writes++ % this.limits.pruneEvery === 0) this.prune();
  }

  private prune(): void {
    const entries = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
    if (entries.length <= this.limits.maxEntries) return;
    const byAge = entries
      .map((f) => ({ f, at: statSync(join(this.dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => a.at - b.at);
    for (const { f } of byAge.slice(0, entries.length - this.limits.maxEntries)) rmSync(join(this.dir, f), { force: true });
  }
}

/**
 * The parse cache in the `catalogs` folder of the cache directory the
 * environment names (`fallback`: the editor's own storage); none with
 * MCC_CACHE_DIR=off or when that folder cannot be made private.
 */
export function openParseCache(env: NodeJS.ProcessEnv = process.env, fallback?: string): ParseCache | undefined {
  const dir = cacheDirFromEnv(env, fallback);
  return dir ? DirParseCache.open(join(dir, 'catalogs')) : undefined;
}
