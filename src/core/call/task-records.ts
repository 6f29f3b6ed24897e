// Tasks (the 2026-07-28 tasks extension, SEP-2663) as records in the session
// store: each task is a bucket of its caller's own user, so a task is as
// durable and as shared as the store (any instance on the same Redis or
// SQLite file reads it), lives as long as a bucket (its TTL), and another
// user's task id names a bucket of that user's, where nothing is: it reads
// exactly like an unknown id. The record and a cancel request are separate
// variables, so the instance that runs the task and one that cancels it
// never overwrite each other.
import { randomBytes } from 'node:crypto';
import { SessionError } from '../session/errors';
import type { SessionStoreApi } from '../session/types';

export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

export interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** The tool's answer, as a plain call would have given it (completed tasks). */
  result?: Record<string, unknown>;
  /** A protocol-level failure (failed tasks). */
  error?: { code: number; message: string };
}

/** Bucket keys of tasks; no client-chosen key or handle can take this form. */
export const TASK_KEY_PREFIX = 'mcc-task.';
const TASK_ID = /^[A-Za-z0-9_-]{22}$/;
const RECORD = 'task';
const CANCEL = 'cancel';
// Under the store's per-value limit (64 KiB by default), with room for the record around the result.
const MAX_RESULT_TEXT = 48 * 1024;

export class TaskRecords {
  constructor(private readonly store: SessionStoreApi) {}

  get ttlMs(): number {
    return this.store.ttlMs;
  }

  newId(): string {
    return randomBytes(16).toString('base64url');
  }

  /** Writes the record durably (a tasks/get anywhere sees it once this resolves). */
  async put(user: string, record: TaskRecord): Promise<void> {
    try {
      await this.store.set(user, TASK_KEY_PREFIX + record.taskId, RECORD, record);
    } catch (e) {
      if (!(e instanceof SessionError) || !record.result) throw e;
      await this.store.set(user, TASK_KEY_PREFIX + record.taskId, RECORD, { ...record, result: cutResult(record.result) });
    }
  }

  /** The caller's task, or undefined for an unknown id, another user's, or an expired one. */
  async get(user: string, taskId: unknown): Promise<{ record: TaskRecord; cancelRequested: boolean } | undefined> {
    if (typeof taskId !== 'string' || !TASK_ID.test(taskId)) return undefined;
    const vars = await this.store.variables(user, TASK_KEY_PREFIX + taskId);
    const record = vars[RECORD] as TaskRecord | undefined;
    return record ? { record, cancelRequested: vars[CANCEL] === true } : undefined;
  }

  async requestCancel(user: string, taskId: string): Promise<void> {
    await this.store.set(user, TASK_KEY_PREFIX + taskId, CANCEL, true);
  }
}

// A result too large for one stored value keeps its first part and says so.
function cutResult(result: Record<string, unknown>): Record<string, unknown> {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: string; text?: string }>) : [];
  const text = content.map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
  const note = `\n[output cut to ${MAX_RESULT_TEXT / 1024} KiB for the task store; run the tool without a task for all of it]`;
  return { content: [{ type: 'text', text: text.slice(0, MAX_RESULT_TEXT) + note }], ...(result.isError ? { isError: true } : {}) };
}
