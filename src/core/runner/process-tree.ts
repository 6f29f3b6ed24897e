// Finding and killing everything a run started. Each run is its own process
// group (pid = pgid). On Linux we also read /proc: it tells zombies from live
// processes (a container's PID 1 may never reap orphans, so "kill -0 works"
// is not "still running"), and it finds descendants that left the group
// with setsid while their parent still lives.
import { readdirSync, readFileSync } from 'node:fs';

const HAS_PROC = process.platform === 'linux';

interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  zombie: boolean;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; fields follow it.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, zombie: f[0] === 'Z' || f[0] === 'X', ppid: Number(f[1]), pgid: Number(f[2]) };
  } catch {
    return undefined;
  }
}

function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = readProc(Number(name));
    if (p) out.push(p);
  }
  return out;
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!HAS_PROC) return true;
  const p = readProc(pid);
  return p !== undefined && !p.zombie;
}

/** Live (non-zombie) descendants of pid, found through parent links. */
export function descendantsOf(pid: number): number[] {
  if (!HAS_PROC) return [];
  const children = new Map<number, number[]>();
  for (const p of allProcs()) {
    if (p.zombie) continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p.pid);
    children.set(p.ppid, list);
  }
  const out: number[] = [];
  const todo = [pid];
  while (todo.length > 0) {
    for (const c of children.get(todo.pop() as number) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!HAS_PROC) return true;
  return allProcs().some((p) => p.pgid === pgid && !p.zombie);
}

function signalAll(pgid: number, pids: readonly number[], signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// The first looks come soon: what is already ending (a sandbox's init, which
// outlives bwrap's monitor by a millisecond or two) is seen gone at once,
// instead of after a whole 20 ms step.
async function waitGone(pgid: number, pids: readonly number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (let step = 1; ; step = Math.min(20, step * 2)) {
    if (!groupAlive(pgid) && !pids.some(isAlive)) return true;
    if (Date.now() >= until) return false;
    await sleep(step);
  }
}

/**
 * Ends a run's process group and any descendants that escaped it: SIGTERM,
 * then SIGKILL for whatever is left after graceMs. Resolves once nothing
 * live remains (or, if something survives SIGKILL, e.g. stuck in the kernel,
 * after a few seconds; the answer says whether everything is gone).
 * leaderReaped: the group leader has exited and been waited for.
 */
export async function killProcessTree(pgid: number, graceMs: number, leaderReaped: boolean): Promise<boolean> {
  // Once the leader is reaped its pid may be reused, so parent links from it
  // would point at strangers; its orphans are still found by group.
  const treeOf = (): number[] => (leaderReaped ? [] : descendantsOf(pgid));
  const escaped = treeOf();
  if (!groupAlive(pgid) && !escaped.some(isAlive)) return true;
  if (graceMs > 0) {
    signalAll(pgid, escaped, 'SIGTERM');
    if (await waitGone(pgid, escaped, graceMs)) return true;
  }
  // Children forked during the grace period are in the group or below it.
  const all = [...new Set([...escaped, ...treeOf()])];
  signalAll(pgid, all, 'SIGKILL');
  return waitGone(pgid, all, 5000);
}
