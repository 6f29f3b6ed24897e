// The bubblewrap argv of one sandboxed run. Each sandbox starts from an
// empty root: the system part (system-mounts.ts), its own /proc (a new PID
// namespace: no other process is visible, the server's /proc/<pid>/environ
// included), a minimal /dev, a private /tmp, then the profile's paths,
// parents before children so a write path inside a read path stays
// writable. Secret files (the users file) are covered by /dev/null wherever
// a mounted path would show them. No --new-session: a pipe run is already a
// session of its own without a terminal, and a pty run's terminal is its
// own, so neither can push keystrokes into the server's terminal.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, relative, sep } from 'node:path';
import { isPrivateTmp, type SandboxProfile } from './profile';
import { systemMounts, type Mount } from './system-mounts';

export interface SandboxRun {
  profile: SandboxProfile;
  /** Files no sandbox may show, e.g. the users file. */
  hidden: readonly string[];
  /** Paths the runtime itself needs visible read-only (the Python runner, a store file). */
  extraRead?: readonly string[];
  cwd?: string;
}

/** The bwrap options (everything before `--` and the command). */
export function bwrapArgs(run: SandboxRun): string[] {
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (!run.profile.network) args.push('--unshare-net');
  // Parents first (a stable sort keeps the system's order among equals), so a
  // path inside /tmp shows above the private /tmp, and /proc above a read of /.
  const mounts = [...systemMounts(run.profile.network), ...userMounts(run)].sort((a, b) => depth(a.dest) - depth(b.dest));
  for (const m of mounts) args.push(...m.args);
  const shown = mounts.filter((m) => m.shows).map((m) => m.dest);
  for (const h of hiddenTargets(run.hidden, shown)) args.push(...cover(h));
  if (run.cwd !== undefined) args.push('--chdir', run.cwd);
  return args;
}

/** The profile's paths and the runtime's, once each (write wins). Missing ones are left out. */
function userMounts(run: SandboxRun): Mount[] {
  const hostTmp = tmpdir();
  const byPath = new Map<string, boolean>();
  for (const p of [...run.profile.read, ...(run.extraRead ?? [])]) if (!isPrivateTmp(p, hostTmp)) byPath.set(p, byPath.get(p) ?? false);
  for (const p of run.profile.write) if (!isPrivateTmp(p, hostTmp)) byPath.set(p, true);
  return [...byPath].map(([path, write]) => ({ dest: path, args: [write ? '--bind-try' : '--ro-bind-try', path, path], shows: true }));
}

/** A relative path that stays below its base (a name like `..x` does). */
function inside(rel: string): boolean {
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function depth(p: string): number {
  return p.split(sep).filter(Boolean).length;
}

/**
 * Where each hidden file would show inside the sandbox: under every shown
 * path whose real location holds it (a path reached through a symlink
 * still shows the file at the link's name).
 */
function hiddenTargets(hidden: readonly string[], shown: readonly string[]): string[] {
  const out = new Set<string>();
  for (const h of hidden) {
    const real = realOrUndefined(h);
    if (real === undefined) continue;
    for (const s of shown) {
      const base = realOrUndefined(s);
      if (base === undefined) continue;
      const rel = relative(base, real);
      if (rel === '') out.add(s);
      else if (inside(rel)) out.add(`${s}${s.endsWith(sep) ? '' : sep}${rel}`);
    }
  }
  return [...out];
}

function cover(path: string): string[] {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    // gone meanwhile: cover it as a file
  }
  return dir ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path];
}

function realOrUndefined(p: string): string | undefined {
  try {
    return existsSync(p) ? realpathSync(p) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a path is inside what the sandbox shows (for a clear error before bwrap's own). */
export function isVisible(run: SandboxRun, path: string): boolean {
  // /proc, /dev and /tmp are fresh: nothing of the host's shows below them.
  if (path === '/tmp') return true;
  const shown = [...systemMounts(run.profile.network).filter((m) => m.shows).map((m) => m.dest), ...run.profile.read, ...run.profile.write, ...(run.extraRead ?? [])];
  return shown.some((s) => {
    const rel = relative(s, path);
    return rel === '' || inside(rel);
  });
}
