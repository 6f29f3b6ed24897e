// Warm Python runners: long-lived `mcc_runner.py serve` processes that run
// one call at a time, so that a call costs a JSON round trip instead of an
// interpreter start (~125 ms).
//
// A process serves one key: interpreter, cwd and the environment without
// the per-call MCC_CTX* variables (PYTHONPATH and everything else that
// Python reads at startup is in there). Per call it gets the call's whole
// environment (it replaces os.environ), its cwd, target, kwargs and context.
// Module globals persist between the calls of a process, as in the original
// MCC, which imports tools in-process; a module whose file changed is
// imported afresh (see ModuleWatch in mcc_runner.py).
//
// Requests go on stdin, answers come back one a line on fd 3. What the tool
// prints arrives on the process's stdout and stderr; before each answer the
// runner writes a fence (a unique line) to both, and the call is over when
// the answer and both fences are in, so no output is lost or given to the
// wrong call.
//
// A timeout or cancel kills the process's whole group (the runner leads its
// own), like a one-shot run, and the pool forgets it; so does a crash, and
// so does a call whose fences came without an answer. Whenever a process
// exits (idle, evicted, crashed, killed), whatever the tool left running in
// its group is killed after it. At
// most `maxSize` processes live; a call that finds them all busy gets none
// (the caller then runs one-shot). Idle processes exit after `idleMs` and
// never keep the host's event loop alive.
import type { PythonRunHandle } from './python-process';
import { warmKey, type WarmCallSpec } from './warm-key';
import { WarmProcess } from './warm-process';

export { warmKey, type WarmCallSpec } from './warm-key';

export interface PythonPoolOptions {
  maxSize: number;
  /** An idle process exits after this long (default 60 s). */
  idleMs?: number;
}

export const DEFAULT_PYTHON_IDLE_MS = 60_000;

export class PythonPool {
  private readonly all = new Set<WarmProcess>();
  private readonly idleMs: number;
  private disposed = false;

  constructor(private readonly opts: PythonPoolOptions) {
    this.idleMs = opts.idleMs ?? DEFAULT_PYTHON_IDLE_MS;
  }

  /** Live processes (busy or idle), for tests. */
  get size(): number {
    return this.all.size;
  }

  /**
   * Runs the call in a warm process of its key, or answers undefined when
   * every process is busy with other calls (the caller runs it one-shot).
   */
  start(spec: WarmCallSpec): PythonRunHandle | undefined {
    if (this.disposed || this.opts.maxSize <= 0) return undefined;
    const key = warmKey(spec.interpreter, spec.cwd, spec.env, spec.partition);
    let proc = this.takeIdle(key);
    if (!proc) {
      if (this.all.size >= this.opts.maxSize) {
        const victim = this.oldestIdle();
        if (!victim) return undefined;
        victim.retire();
      }
      proc = new WarmProcess(key, spec, this.idleMs, (p) => this.all.delete(p));
      this.all.add(proc);
    }
    return proc.call(spec);
  }

  /** Kills every process, busy or idle; running calls end as 'shutdown'. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.allSettled([...this.all].map((p) => p.kill('shutdown')));
  }

  private takeIdle(key: string): WarmProcess | undefined {
    let best: WarmProcess | undefined;
    for (const p of this.all) if (p.key === key && p.isIdle() && (!best || p.idleSince > best.idleSince)) best = p;
    return best;
  }

  private oldestIdle(): WarmProcess | undefined {
    let best: WarmProcess | undefined;
    for (const p of this.all) if (p.isIdle() && (!best || p.idleSince < best.idleSince)) best = p;
    return best;
  }
}
