// A cache of parsed catalog files, keyed by a hash of their text, so a start
// with an unchanged catalog reads JSON instead of running the YAML parser
// (cold, it was most of a large catalog's load).
import { readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateDir } from './cache-dir';

export interface ParseCache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

const KEY = /^[0-9a-f]{16,128}$/;

/** One file per entry in a private directory; the least recently used go past `maxEntries`. */
export class DirParseCache implements ParseCache {
  private constructor(
    private readonly dir: string,
    private readonly maxEntries: number,
  ) {}

  /** A cache in `dir`, or undefined when `dir` cannot be made private to this user. */
  static open(dir: string, maxEntries = 32): DirParseCache | undefined {
    const ok = privateDir(dir);
    return ok ? new DirParseCache(ok, maxEntries) : undefined;
  }

  get(key: string): string | undefined {
    if (!KEY.test(key)) return undefined;
    const file = join(this.dir, `${key}.json`);
    try {
      const text = readFileSync(file, 'utf8');
      const now = new Date();
      utimesSync(file, now, now);
      return text;
    } catch {
      return undefined;
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
      this.prune();
    } catch {
      rmSync(tmp, { force: true });
    }
  }

  private prune(): void {
    const entries = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
    if (entries.length <= this.maxEntries) return;
    const byAge = entries
      .map((f) => ({ f, at: statSync(join(this.dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => a.at - b.at);
    for (const { f } of byAge.slice(0, entries.length - this.maxEntries)) rmSync(join(this.dir, f), { force: true });
  }
}
