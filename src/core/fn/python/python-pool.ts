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
// most `maxSize` processes live. A call that finds them all busy waits in a
// queue for one to free (a warm call takes about a millisecond, an
// interpreter start over a hundred); only when none has freed after
// `queueWaitMs` (a long-running tool holds them) does it run one-shot. Idle
// processes exit after `idleMs` and never keep the host's event loop alive.
import type { PythonRunHandle, PythonRunResult, StopReason } from './python-process';
import { warmKey, type WarmCallSpec } from './warm-key';
import { WarmProcess } from './warm-process';

export { warmKey, type WarmCallSpec } from './warm-key';

export interface PythonPoolOptions {
  maxSize: number;
  /** An idle process exits after this long (default 60 s). */
  idleMs?: number;
  /** How long a call waits for a busy process before it runs one-shot (default 1 s). */
  queueWaitMs?: number;
}

export const DEFAULT_PYTHON_IDLE_MS = 60_000;
export const DEFAULT_PYTHON_QUEUE_WAIT_MS = 1000;

/** A call waiting for a warm process. */
interface Waiter {
  key: string;
  /** Starts the call on a process now free; false when none is. */
  tryRun: () => boolean;
  stop: (reason: StopReason) => void;
}

export class PythonPool {
  private readonly all = new Set<WarmProcess>();
  private readonly queue: Waiter[] = [];
  private readonly idleMs: number;
  private readonly queueWaitMs: number;
  private dispatching = false;
  private disposed = false;

  constructor(private readonly opts: PythonPoolOptions) {
    this.idleMs = opts.idleMs ?? DEFAULT_PYTHON_IDLE_MS;
    this.queueWaitMs = opts.queueWaitMs ?? DEFAULT_PYTHON_QUEUE_WAIT_MS;
  }

  /** Calls waiting for a process, for tests. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Live processes (busy or idle), for tests. */
  get size(): number {
    return this.all.size;
  }

  /**
   * Runs the call in a warm process of its key: at once when one is free or
   * may be started, else when one frees up; `oneShot` runs it on its own
   * when none has after queueWaitMs, or when the pool is closed.
   */
  start(spec: WarmCallSpec, oneShot: () => PythonRunHandle): PythonRunHandle {
    if (this.disposed || this.opts.maxSize <= 0) return oneShot();
    const key = warmKey(spec.interpreter, spec.cwd, spec.env, spec.partition, spec.sandbox?.key);
    return this.startNow(key, spec) ?? this.enqueue(key, spec, oneShot);
  }

  /** Kills every process, busy or idle; running and waiting calls end as 'shutdown'. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const w of this.queue.splice(0)) w.stop('shutdown');
    await Promise.allSettled([...this.all].map((p) => p.kill('shutdown')));
  }

  private startNow(key: string, spec: WarmCallSpec): PythonRunHandle | undefined {
    let proc = this.takeIdle(key);
    if (!proc) {
      if (this.all.size >= this.opts.maxSize) {
        const victim = this.oldestIdle();
        if (!victim) return undefined;
        victim.retire();
      }
      proc = new WarmProcess(key, spec, this.idleMs, (p) => this.freed(p, true), (p) => this.freed(p, false));
      this.all.add(proc);
    }
    return proc.call(spec);
  }

  /**
   * Queues the call. Its handle is the same whether it ends up warm, one-shot
   * or stopped while waiting; the wait counts toward the call's timeout.
   */
  private enqueue(key: string, spec: WarmCallSpec, oneShot: () => PythonRunHandle): PythonRunHandle {
    const since = performance.now();
    let inner: PythonRunHandle | undefined;
    let settled = false;
    let settle!: (h: PythonRunHandle | StopReason) => void;
    const done = new Promise<PythonRunResult>((resolve, reject) => {
      settle = (h) => {
        settled = true;
        leave();
        if (typeof h === 'string') return resolve({ stdout: '', stderr: '', code: null, signal: null, stopped: h });
        inner = h;
        h.done.then(resolve, reject);
      };
    });
    const remaining = (): WarmCallSpec => ({ ...spec, timeoutMs: Math.max(1, spec.timeoutMs - (performance.now() - since)) });
    const waiter: Waiter = {
      key,
      tryRun: () => {
        if (settled) return false;
        const h = this.startNow(key, remaining());
        if (h) settle(h);
        return h !== undefined;
      },
      stop: (reason) => (inner ? inner.stop(reason) : settle(reason)),
    };
    const onAbort = (): void => waiter.stop('cancelled');
    const timeout = setTimeout(() => waiter.stop('timeout'), spec.timeoutMs);
    const fallback = setTimeout(() => {
      if (!settled) settle(oneShot());
    }, Math.min(this.queueWaitMs, spec.timeoutMs));
    const leave = (): void => {
      clearTimeout(timeout);
      clearTimeout(fallback);
      spec.signal?.removeEventListener('abort', onAbort);
      const at = this.queue.indexOf(waiter);
      if (at >= 0) this.queue.splice(at, 1);
    };
    this.queue.push(waiter);
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();
    return { stop: (reason) => waiter.stop(reason), done };
  }

  /** A process became idle or went away: hand it (or its place) to whoever waits. */
  private freed(p: WarmProcess, gone: boolean): void {
    if (gone) this.all.delete(p);
    if (this.queue.length === 0 || this.dispatching) return;
    // Not inside the process's own bookkeeping: its caller finishes first.
    this.dispatching = true;
    queueMicrotask(() => {
      this.dispatching = false;
      for (const w of [...this.queue]) if (!this.disposed) w.tryRun();
    });
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
