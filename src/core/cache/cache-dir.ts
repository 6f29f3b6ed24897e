// Where derived files (parsed catalogs, compiled code) are kept between
// starts. Whoever can write a file there chooses what the next start reads
// or runs, so a directory is only used when this user alone can write it.
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** `$XDG_CACHE_HOME/mcc`, else `~/.cache/mcc`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'mcc');
}

/**
 * Creates `dir` (0700) if needed and answers it when it is a directory this
 * user owns and nobody else can write; otherwise undefined (no caching).
 */
export function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = statSync(dir);
    if (!s.isDirectory()) return undefined;
    // Windows has neither owners by number nor these mode bits.
    if (process.platform === 'win32') return dir;
    if (s.uid !== process.getuid?.() || (s.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * The cache directory the environment names: $MCC_CACHE_DIR (`off` for
 * none), else the default above.
 */
export function cacheDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.MCC_CACHE_DIR;
  if (named === 'off') return undefined;
  return named ? named : defaultCacheDir(env);
}
