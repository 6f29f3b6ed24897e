// Loads the CLI bundle through V8's code cache, as Node 22's
// module.enableCompileCache does (Node 20 has none): the first start stores
// the bytecode V8 compiled, later starts skip parsing and compiling a
// megabyte of JavaScript. v8-compile-cache does the same, but in a shared
// temporary folder any local user could plant bytecode in; this keeps it in
// the user's private cache directory (see core/cache/cache-dir.ts).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { readOwnFile, writeWhole } from '../core/cache/cache-file';

// Builds kept: a global and a local mcc, or two Node versions, each keep theirs.
const KEEP = 4;

export interface LoadedModule {
  exports: unknown;
  /** What the cache gave: no cache folder, compiled code V8 took, none yet, or code V8 refused. */
  cache: 'off' | 'hit' | 'miss' | 'rejected';
  /** Stores the code compiled so far, when the cache had none that fit; call once start-up is done. */
  saveCache(): void;
}

/** Loads CommonJS `file` like require, through a code cache in `dir` (none when undefined). */
export function loadWithCodeCache(file: string, dir: string | undefined): LoadedModule {
  const bytes = readFileSync(file);
  // V8 checks a cache against the source's length only: the key is the content.
  const key = createHash('sha1').update(process.version).update(process.arch).update(bytes).digest('hex').slice(0, 20);
  const stem = basename(file, '.js');
  const cacheFile = dir ? join(dir, `${stem}-${key}.bin`) : undefined;
  const cachedData = cacheFile ? readOwnFile(cacheFile) : undefined;
  const source = bytes.toString('utf8');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const cache = !cacheFile ? 'off' : !cachedData ? 'miss' : script.cachedDataRejected === true ? 'rejected' : 'hit';
  const needsWrite = cache === 'miss' || cache === 'rejected';
  const mod = { exports: {} as unknown };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  return {
    exports: mod.exports,
    cache,
    saveCache: () => {
      if (needsWrite && dir && cacheFile) writeCache(dir, stem, cacheFile, script.createCachedData());
    },
  };
}

function writeCache(dir: string, stem: string, file: string, data: Buffer): void {
  if (writeWhole(file, data)) prune(dir, stem);
}

/** Keeps the KEEP most recently used builds of `stem`, and drops what a start stopped while writing left behind. */
function prune(dir: string, stem: string): void {
  const mine = readdirSync(dir).filter((f) => f.startsWith(`${stem}-`));
  const at = (f: string): number => statSync(join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const builds = mine.filter((f) => f.endsWith('.bin')).sort((a, b) => at(b) - at(a));
  const stale = mine.filter((f) => f.endsWith('.tmp') && at(f) < Date.now() - 60_000);
  for (const f of [...builds.slice(KEEP), ...stale]) rmSync(join(dir, f), { force: true });
}
