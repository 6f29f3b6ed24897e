// A cache of parsed catalog files, keyed by a hash of their text, so a start
// with an unchanged catalog reads JSON instead of running the YAML parser
// (cold, it was most of a large catalog's load).
import { closeSync, futimesSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOwnFile, privateDir } from './cache-dir';

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
    let fd: number | undefined;
    try {
      fd = openSync(join(this.dir, `${key}.json`), 'r');
      // A file someone else put there is not ours to trust.
      if (!isOwnFile(fd)) return undefined;
      const text = readFileSync(fd, 'utf8');
      const now = new Date();
      futimesSync(fd, now, now);
      return text;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  set(key: string, value: string): void {
    if (!KEY.test(key)) return;
    const file = join(this.dir, `${key}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      // Written whole, then renamed: a reader never sees half an entry.
      writeFileSync(tmp, value, { mode: 0o600 });
      renameSync(tmp, file);
      if (this.writes++ % this.limits.pruneEvery === 0) this.prune();
    } catch {
      rmSync(tmp, { force: true });
    }
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
