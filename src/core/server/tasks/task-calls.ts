// A catalog call run as a task (the 2026-07-28 tasks extension, SEP-2663),
// for a client that declares the extension: a run that ends within a second
// answers as a plain call; a longer one answers at once with the task, and
// goes on without the request. Its record (call/task-records.ts) carries the
// latest output line as the status message while it runs, and the answer a
// plain call would have given when it ends. A cancel made through any
// instance reaches the one running it within a second; the process group is
// killed as for a cancelled call.
import type { CallOptions } from '../../call/call-pipeline';
import type { TaskRecord, TaskRecords } from '../../call/task-records';
import type { ToolCallResult } from '../../tool-result';
import { RunProgress } from '../run-progress';

/** The extension's name, in capabilities and client capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How often a client should poll (the "about 2 s"). */
export const POLL_INTERVAL_MS = 2000;
/** A run that ends sooner answers as a plain call (the immediate-result shortcut). */
const SHORTCUT_MS = 1000;
/** How often the running instance writes its status and looks for a cancel. */
const FOLLOW_MS = 1000;
/** The longest a running task goes without a write (its instance is alive). */
const HEARTBEAT_MS = 5000;
/** A working task not written for this long has lost the instance that ran it. */
export const ORPHAN_AFTER_MS = 30_000;

/** The tasks running in this process, so a cancel made here needs no round trip through the store. */
const localRuns = new Map<string, AbortController>();

export interface TaskCall {
  records: TaskRecords;
  user: string;
  /** Runs the call with these options (the pipeline's execute). */
  run(call: Pick<CallOptions, 'signal' | 'events'>): Promise<ToolCallResult>;
  /** The call's answer as MCP sends it (or an input-required result, which never becomes a task). */
  answer(result: ToolCallResult): Promise<Record<string, unknown>>;
  /** The run's time limit, for the status message's "of N s". */
  totalSeconds(key: string): number | undefined;
  /** A run that ends within a second answers as a plain call (2026-07-28); 2025-11-25 asked for a task and gets one. */
  shortcut: boolean;
}

/** A task's first answer: the call's own answer (it ended at once), or the task. */
export type TaskStart = { answer: Record<string, unknown> } | { task: TaskRecord };

export async function runAsTask(t: TaskCall): Promise<TaskStart> {
  const controller = new AbortController();
  let status: string | undefined;
  const progress = new RunProgress({ send: (u) => (status = u.message), totalSeconds: (k) => t.totalSeconds(k) });
  const running = t.run({ signal: controller.signal, events: progress }).finally(() => progress.stop());
  const quick = t.shortcut ? await Promise.race([running, delay(SHORTCUT_MS).then(() => undefined)]) : undefined;
  if (quick) return { answer: await t.answer(quick) };

  const now = new Date().toISOString();
  const record: TaskRecord = {
    taskId: t.records.newId(),
    status: 'working',
    ...(status ? { statusMessage: status } : {}),
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: t.records.ttlMs,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  // Durable before the client hears of it: a tasks/get right after must find it.
  await t.records.put(t.user, record);
  localRuns.set(record.taskId, controller);
  follow(t, record, controller, running, () => status);
  return { task: record };
}

/** Cancels a task running in this process; false when it runs elsewhere (or no more). */
export function cancelLocally(taskId: string): boolean {
  const controller = localRuns.get(taskId);
  controller?.abort(new Error('the task was cancelled'));
  return controller !== undefined;
}

// Writes the status while the task runs (each write also tells other
// instances it is alive), looks for a cancel made elsewhere each second,
// then writes the end.
function follow(t: TaskCall, record: TaskRecord, controller: AbortController, running: Promise<ToolCallResult>, status: () => string | undefined): void {
  let writes = Promise.resolve();
  const write = (next: Partial<TaskRecord>): Promise<void> =>
    (writes = writes.then(() => t.records.put(t.user, { ...record, ...next, lastUpdatedAt: new Date().toISOString() }).catch(() => undefined)));
  // A durable write when the status changed, else one every HEARTBEAT_MS to say the instance is alive.
  let written = { message: status(), at: Date.now() };
  const timer = setInterval(() => {
    const message = status();
    if (message !== written.message || Date.now() - written.at >= HEARTBEAT_MS) {
      written = { message, at: Date.now() };
      void write(message ? { statusMessage: message } : {});
    }
    void t.records.get(t.user, record.taskId).then((now) => {
      if (now?.cancelRequested) controller.abort(new Error('the task was cancelled'));
    });
  }, FOLLOW_MS);
  timer.unref();
  const end = (final: Partial<TaskRecord>): Promise<void> => {
    clearInterval(timer);
    localRuns.delete(record.taskId);
    return write(final);
  };
  running.then(
    async (result) => {
      if (controller.signal.aborted) return end({ status: 'cancelled', statusMessage: 'cancelled' });
      return end({ status: 'completed', statusMessage: result.isError ? 'failed' : 'done', result: (await t.answer(result)) });
    },
    (e: unknown) => end({ status: 'failed', error: { code: -32603, message: e instanceof Error ? e.message : String(e) } }),
  ).catch(() => undefined);
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
