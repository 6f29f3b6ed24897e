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
// How long a sandbox's namespace may take to end by itself once bwrap has exited.
const SANDBOX_END_MS = 1000;

// The first looks come soon: what is already ending is seen gone at once,
// instead of after a whole 20 ms step.
async function waitGone(pgid: number, pids: readonly number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (let step = 1; ; step = Math.min(20, step * 2)) {
    if (!groupAlive(pgid) && !pids.some(isAlive)) return true;
    if (Date.now() >= until) return false;
    await sleep(step);
  }
}

async function waitPidsGone(pids: readonly number[], ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (let step = 1; ; step = Math.min(20, step * 2)) {
    if (!pids.some(isAlive)) return true;
    if (Date.now() >= until) return false;
    await sleep(step);
  }
}

/**
 * A sandbox after its bwrap has exited. bwrap (0.8) exits as soon as its
 * init in the sandbox's PID namespace reports the command's end, before
 * that init has exited; the init then dies (--die-with-parent) and takes
 * every process of the namespace with it, its own death coming last, after
 * the kernel has torn the namespaces down (a few ms). Every process of the
 * namespace descends from the init (orphans are given to it), so when the
 * init is all that is left of the group and has no children, nothing the
 * tool started is alive: the init's own end is not waited for. Otherwise
 * what is left is watched until it is gone (it is ending), with one look
 * through /proc instead of one per step.
 */
async function sandboxGone(pgid: number, init: number | undefined, ms: number): Promise<boolean> {
  if (!groupExists(pgid)) return true;
  if (!HAS_PROC) return false;
  // Known init: no look through /proc at all.
  if (init !== undefined) return !isAlive(init) || hasNoChildren(init) || waitPidsGone([init], ms);
  const left = allProcs().filter((p) => p.pgid === pgid && !p.zombie);
  const pids = new Set(left.map((p) => p.pid));
  // bwrap's init is the one whose parent (bwrap) was outside the namespace.
  const inits = left.filter((p) => !pids.has(p.ppid));
  if (left.length === 1 && inits.length === 1 && hasNoChildren((inits[0]).pid)) return true;
  return waitPidsGone([...pids], ms);
}

/** True when /proc says the process has no children (false when it cannot say). */
function hasNoChildren(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim() === '';
  } catch {
    return false;
  }
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Ends a run's process group and any descendants that escaped it: SIGTERM,
 * then SIGKILL for whatever is left after graceMs. Resolves once nothing
 * live remains (or, if something survives SIGKILL, e.g. stuck in the kernel,
 * after a few seconds; the answer says whether everything is gone).
 * leaderReaped: the group leader has exited and been waited for.
 * sandbox: the leader is bwrap, the rest of the group is in its PID
 * namespace; `init`, when known, is the pid of bwrap's init there.
 */
export async function killProcessTree(pgid: number, graceMs: number, leaderReaped: boolean, sandbox?: { init?: number }): Promise<boolean> {
  // Whatever does not end by itself in time is ended as in any other run.
  if (leaderReaped && sandbox && (await sandboxGone(pgid, sandbox.init, Math.max(graceMs, SANDBOX_END_MS)))) return true;
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
