// A bounded pool of worker threads for JavaScript fn tools. A worker runs
// one call at a time; one that timed out, was cancelled, crashed or ran out
// of memory is terminated and never reused, so the next call gets a fresh
// one. Workers are keyed by the caller's partition (the user, and the
// session for anonymous callers: module globals never cross between them,
// as with warm Python processes) and by their heap limit (limits.mem_mb),
// which can only be set when a worker starts. An idle worker exits after
// idleMs. A worker starts with an empty environment; each job brings the
// tool's own (runner/env.ts), in place while its module loads and runs.
import { Worker } from 'node:worker_threads';
import { workerScriptPath } from '../assets';
import { stopReasonOf } from '../../tool-run/errors';

export interface JsJob {
  type: 'call' | 'probe';
  modulePath: string;
  exportName: string;
  mtimeMs: number;
  params?: Record<string, unknown>;
  context?: Record<string, unknown>;
  env?: Record<string, string>;
}

export type JsResult =
  | { kind: 'ok'; json: string; contextJson?: string; contextError?: string }
  | { kind: 'threw'; stage: 'load' | 'call' | 'result'; message: string; stack: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled'; reason: 'cancelled' | 'shutdown' }
  | { kind: 'crashed'; message: string; outOfMemory: boolean };

export interface JsRunOptions {
  memMb?: number;
  /** Who may share a worker (see warmPartition); '' for throwaway pools. */
  partition?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;
}

interface WorkerMessage {
  type: 'output' | 'result';
  id: number | null;
  stream?: 'stdout' | 'stderr';
  data?: string;
  ok?: boolean;
  json?: string;
  contextJson?: string;
  contextError?: string;
  stage?: 'load' | 'call' | 'result';
  message?: string;
  stack?: string;
}

interface Slot {
  worker: Worker;
  key: string;
  /** Set while a call runs on this worker. */
  onMessage?: (m: WorkerMessage) => void;
  onExit?: (code: number) => void;
  lastError?: Error & { code?: unknown };
  /** The id of the call the worker runs (or ran last). */
  callId: number;
  dead: boolean;
  idleTimer?: NodeJS.Timeout;
}

interface Waiter {
  key: string;
  memMb: number | undefined;
  give: (slot: Slot | undefined) => void;
}

export class WorkerPool {
  private readonly idle: Slot[] = [];
  private readonly all = new Set<Slot>();
  private readonly waiters: Waiter[] = [];
  private readonly shutdownHooks = new Set<() => void>();
  private seq = 0;
  private disposed = false;

  constructor(
    private readonly size: number,
    private readonly idleMs = 60_000,
  ) {}

  /** Runs one job on a worker; never rejects for anything the tool does. */
  async run(job: JsJob, o: JsRunOptions): Promise<JsResult> {
    if (this.disposed) return { kind: 'cancelled', reason: 'shutdown' };
    const slot = await this.acquire(o.memMb, o.partition ?? '', o.signal);
    if (!slot) return this.disposed ? { kind: 'cancelled', reason: 'shutdown' } : { kind: 'cancelled', reason: 'cancelled' };
    return this.dispatch(slot, job, o);
  }

  /** Terminates every worker; running calls answer 'shutdown'. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const w of this.waiters.splice(0)) w.give(undefined);
    for (const hook of [...this.shutdownHooks]) hook();
    const slots = [...this.all];
    for (const slot of slots) clearTimeout(slot.idleTimer);
    this.idle.length = 0;
    this.all.clear();
    await Promise.allSettled(slots.map((s) => s.worker.terminate()));
  }

  /** Number of live workers (tests). */
  get workerCount(): number {
    return this.all.size;
  }

  private dispatch(slot: Slot, job: JsJob, o: JsRunOptions): Promise<JsResult> {
    const id = ++this.seq;
    slot.callId = id;
    return new Promise<JsResult>((resolve) => {
      let settled = false;
      const finish = (r: JsResult, reusable: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        this.shutdownHooks.delete(onShutdown);
        slot.onMessage = undefined;
        slot.onExit = undefined;
        this.release(slot, reusable);
        resolve(r);
      };
      const onAbort = (): void => finish({ kind: 'cancelled', reason: stopReasonOf(o.signal) }, false);
      const onShutdown = (): void => finish({ kind: 'cancelled', reason: 'shutdown' }, false);
      const timer = setTimeout(() => finish({ kind: 'timeout' }, false), o.timeoutMs);
      o.signal?.addEventListener('abort', onAbort, { once: true });
      this.shutdownHooks.add(onShutdown);
      slot.onMessage = (m) => {
        if (m.id !== id) return;
        if (m.type === 'output') {
          if (m.stream && m.data !== undefined) o.onOutput?.(m.stream, m.data);
          return;
        }
        if (m.ok) {
          finish(
            {
              kind: 'ok',
              json: m.json ?? 'null',
              ...(m.contextJson !== undefined ? { contextJson: m.contextJson } : {}),
              ...(m.contextError !== undefined ? { contextError: m.contextError } : {}),
            },
            true,
          );
        } else {
          finish({ kind: 'threw', stage: m.stage ?? 'call', message: m.message ?? 'unknown error', stack: m.stack ?? '' }, true);
        }
      };
      slot.onExit = (code) => {
        const err = slot.lastError;
        const oom = err?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        const message = err ? (err.stack ?? err.message) : `the worker exited with code ${code} (process.exit in the tool?)`;
        finish({ kind: 'crashed', message, outOfMemory: oom }, false);
      };
      if (o.signal?.aborted) return onAbort();
      slot.worker.ref();
      try {
        slot.worker.postMessage({ ...job, id });
      } catch (e) {
        finish({ kind: 'threw', stage: 'call', message: `cannot pass the call to the worker: ${(e as Error).message}`, stack: '' }, true);
      }
    });
  }

  private acquire(memMb: number | undefined, partition: string, signal?: AbortSignal): Promise<Slot | undefined> {
    const key = JSON.stringify([memMb ?? null, partition]);
    const now = this.take(key, memMb);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        key,
        memMb,
        give: (s) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(undefined);
      };
      if (signal?.aborted) return resolve(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  // An idle worker of the same kind, a new one while under the bound, or a
  // new one in place of an idle worker of another kind.
  private take(key: string, memMb: number | undefined): Slot | undefined {
    const i = this.idle.findIndex((s) => s.key === key);
    if (i >= 0) {
      const slot = this.idle.splice(i, 1)[0];
      clearTimeout(slot.idleTimer);
      return slot;
    }
    if (this.all.size >= this.size) {
      const other = this.idle.shift();
      if (!other) return undefined;
      this.retire(other);
    }
    return this.spawn(key, memMb);
  }

  private spawn(key: string, memMb: number | undefined): Slot {
    const worker = new Worker(workerScriptPath(), {
      // Own streams: nothing a tool prints may reach the host's stdout,
      // which can be an MCP stdio transport.
      stdout: true,
      stderr: true,
      // Not the server's environment: a module reads the tool's own, set per job.
      env: {},
      ...(memMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: memMb } } : {}),
    });
    const slot: Slot = { worker, key, callId: 0, dead: false };
    worker.on('message', (m: WorkerMessage) => slot.onMessage?.(m));
    worker.on('error', (e: Error & { code?: unknown }) => {
      slot.lastError = e;
    });
    worker.on('exit', (code: number) => {
      slot.dead = true;
      if (slot.onExit) slot.onExit(code);
      else {
        this.forget(slot);
        this.drain();
      }
    });
    // Writes that bypass the patched streams (rare) still belong to the call.
    for (const stream of ['stdout', 'stderr'] as const) {
      worker[stream].setEncoding('utf8');
      worker[stream].on('data', (data: string) => slot.onMessage?.({ type: 'output', id: slot.callId, stream, data }));
    }
    this.all.add(slot);
    return slot;
  }

  private release(slot: Slot, reusable: boolean): void {
    if (!reusable || slot.dead || this.disposed) this.retire(slot);
    else {
      slot.lastError = undefined;
      slot.worker.unref();
      this.idle.push(slot);
      slot.idleTimer = setTimeout(() => this.retire(slot), this.idleMs);
      slot.idleTimer.unref();
    }
    this.drain();
  }

  private drain(): void {
    while (this.waiters.length > 0 && !this.disposed) {
      const w = this.waiters[0];
      const slot = this.take(w.key, w.memMb);
      if (!slot) return;
      this.waiters.shift();
      w.give(slot);
    }
  }

  private retire(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    this.forget(slot);
    if (!slot.dead) void slot.worker.terminate();
  }

  private forget(slot: Slot): void {
    this.all.delete(slot);
    const i = this.idle.indexOf(slot);
    if (i >= 0) this.idle.splice(i, 1);
  }
}
