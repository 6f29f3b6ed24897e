// Tasks as 2025-11-25 has them, over the same records as the 2026-07-28
// extension (so a task started on one revision reads the same on the
// other): a tools/call with `params.task` answers {task}; tasks/get shows
// it, tasks/result waits for its end and gives the call's answer, and
// tasks/cancel stops it. Another user's task id is the same invalid-params
// error as an unknown one.
import * as z from 'zod';
import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { TaskRecord, TaskRecords } from '../../call/task-records';
import { acceptTaskResults, markTaskAugmentedCalls } from '../sdk-gaps';
import { cancelLocally, ORPHAN_AFTER_MS } from './task-calls';

const TASK_PARAMS = z.looseObject({ taskId: z.string() });
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** How often tasks/result looks at a task that has not ended. */
const RESULT_POLL_MS = 250;

/** A task record in the 2025-11-25 shape (`ttl`, `pollInterval`). */
export function legacyTaskOf(r: TaskRecord): Record<string, unknown> {
  const lost = r.status === 'working' && Date.now() - Date.parse(r.lastUpdatedAt) > ORPHAN_AFTER_MS;
  return {
    taskId: r.taskId,
    status: lost ? 'failed' : r.status,
    ...(lost ? { statusMessage: 'The server instance running this task stopped before it ended.' } : r.statusMessage ? { statusMessage: r.statusMessage } : {}),
    createdAt: r.createdAt,
    lastUpdatedAt: r.lastUpdatedAt,
    ttl: r.ttlMs,
    pollInterval: r.pollIntervalMs,
  };
}

/** Advertises 2025-11-25 tasks for tools/call and answers the tasks methods for `user`. After the tools, before connect. */
export function registerLegacyTaskMethods(server: McpServer, records: TaskRecords, user: string): void {
  server.server.registerCapabilities({ tasks: { requests: { tools: { call: {} } }, cancel: {} } });
  acceptTaskResults(server);
  markTaskAugmentedCalls(server);
  const found = async (taskId: string): Promise<TaskRecord> => {
    const task = await records.get(user, taskId);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
    return task.record;
  };
  server.server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async ({ taskId }) => legacyTaskOf(await found(taskId)));
  server.server.setRequestHandler('tasks/result', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    let task = await found(taskId);
    while (!TERMINAL.has(legacyTaskOf(task).status as string)) {
      if (ctx.mcpReq.signal.aborted) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'tasks/result was cancelled');
      await new Promise((r) => setTimeout(r, RESULT_POLL_MS));
      task = await found(taskId);
    }
    if (task.status === 'completed' && task.result) return { ...task.result, _meta: { 'io.modelcontextprotocol/related-task': { taskId } } };
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, task.status === 'cancelled' ? `Task ${taskId} was cancelled: it has no result` : `Task ${taskId} failed: ${task.error?.message ?? 'no result'}`);
  });
  server.server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async ({ taskId }) => {
    const task = await found(taskId);
    if (TERMINAL.has(task.status)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task ${taskId}: it already ended (${task.status})`);
    if (!cancelLocally(taskId)) await records.requestCancel(user, taskId);
    return { ...legacyTaskOf(task), status: 'cancelled', statusMessage: 'cancelled' };
  });
}
