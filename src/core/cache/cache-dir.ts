// Where derived files (parsed catalogs, compiled code) are kept between
// starts. Whoever can write a file there chooses what the next start reads
// or runs, so a directory is only used when nobody but this user (and root)
// can change it or any folder above it (and a file only when this user
// wrote it: cache-file.ts).
import { mkdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

/** `$XDG_CACHE_HOME/mcc`, else `~/.cache/mcc`; undefined when there is no home either. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'mcc');
  try {
    return join(homedir(), '.cache', 'mcc');
  } catch {
    // No HOME and no passwd entry (a container's numeric user): no cache.
    return undefined;
  }
}

/**
 * The cache directory the environment names: $MCC_CACHE_DIR (`off` for
 * none), else `fallback` (the editor's own storage), else the default above.
 */
export function cacheDirFromEnv(env: NodeJS.ProcessEnv = process.env, fallback?: string): string | undefined {
  const named = env.MCC_CACHE_DIR;
  if (named === 'off') return undefined;
  return named ? named : (fallback ?? defaultCacheDir(env));
}

const WINDOWS = process.platform === 'win32';

/**
 * Creates `dir` (0700) if needed and answers it when this user owns it and
 * nobody else can write to it, nor rename it away through a folder above
 * (each must belong to this user or root and be writable by no one else,
 * unless sticky, as /tmp is); otherwise undefined (no caching).
 */
export function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const real = realpathSync(dir);
    const s = statSync(real);
    if (!s.isDirectory()) return undefined;
    // Windows has neither owners by number nor these mode bits.
    if (WINDOWS) return dir;
    if (!ownedByMe(s) || (s.mode & 0o022) !== 0) return undefined;
    for (let up = dirname(real); ; up = dirname(up)) {
      const a = statSync(up);
      const mine = ownedByMe(a) || a.uid === 0;
      if (!mine || ((a.mode & 0o022) !== 0 && (a.mode & 0o1000) === 0)) return undefined;
      if (dirname(up) === up) break;
    }
    return dir;
  } catch {
    return undefined;
  }
}

function ownedByMe(s: Stats): boolean {
  return s.uid === process.getuid?.();
}
