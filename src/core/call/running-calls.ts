// The calls running now, each with its own abort: the editor cancels one by
// its run id, and a shutdown cancels them all and waits until each has its
// answer (so transports can still deliver it).
import { randomUUID } from 'node:crypto';
import { ServerShutdown } from '../tool-run/errors';

export interface RunningCall {
  readonly runId: string;
  /** Aborts when the caller cancels, the user cancels the run, or the server shuts down. */
  readonly signal: AbortSignal;
  /** Ends the registration; call once, whatever happened. */
  end(): void;
}

export class RunningCalls {
  private readonly running = new Map<string, AbortController>();
  private readonly idleWaiters: Array<() => void> = [];
  private closed = false;

  /** Whether a shutdown has begun (no call starts after it). */
  get closing(): boolean {
    return this.closed;
  }

  /** How many calls are running now. */
  get size(): number {
    return this.running.size;
  }

  /** Registers a call before its first await, so a shutdown that starts now waits for it. */
  start(callerSignal: AbortSignal | undefined): RunningCall {
    const abort = new AbortController();
    const onAbort = (): void => abort.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    if (callerSignal?.aborted) abort.abort(callerSignal.reason);
    const runId = randomUUID();
    this.running.set(runId, abort);
    return {
      runId,
      signal: abort.signal,
      end: () => {
        this.running.delete(runId);
        callerSignal?.removeEventListener('abort', onAbort);
        if (this.running.size === 0) for (const notify of this.idleWaiters.splice(0)) notify();
      },
    };
  }

  /** Cancels one run (the runId of its RunEvents); false when it is not running. */
  cancel(runId: string): boolean {
    const abort = this.running.get(runId);
    abort?.abort(new Error('cancelled by the user'));
    return abort !== undefined;
  }

  /** Refuses new calls, cancels the running ones and resolves once every one has ended. */
  async stopAll(): Promise<void> {
    this.closed = true;
    const idle = this.running.size === 0 ? Promise.resolve() : new Promise<void>((r) => this.idleWaiters.push(r));
    for (const a of this.running.values()) a.abort(new ServerShutdown());
    await idle;
  }
}
