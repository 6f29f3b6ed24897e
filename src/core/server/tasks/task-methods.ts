// tasks/get, tasks/cancel and tasks/update of the 2026-07-28 tasks
// extension, for a request's server. Only a client that declares the
// extension may use them (-32021 otherwise); a task id that is unknown,
// expired or another user's is the same invalid-params error.
import * as z from 'zod';
import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { TaskRecord, TaskRecords } from '../../call/task-records';
import { acceptTaskResults } from '../sdk-gaps';
import { cancelLocally, ORPHAN_AFTER_MS, TASKS_EXTENSION } from './task-calls';

const TASK_PARAMS = z.looseObject({ taskId: z.string() });
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Whether this request's client declared the tasks extension. */
export function takesTasks(server: McpServer): boolean {
  const caps = server.server.getClientCapabilities() as { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** Advertises the extension and answers its methods for `user`. Before connect. */
export function registerTaskMethods(server: McpServer, records: TaskRecords, user: string): void {
  acceptTaskResults(server);
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  const found = async (taskId: unknown): Promise<{ record: TaskRecord; cancelRequested: boolean }> => {
    if (!takesTasks(server)) {
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    }
    const task = await records.get(user, taskId);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${String(taskId)}`);
    return task;
  };
  server.server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async ({ taskId }) => shown(await found(taskId)));
  server.server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async ({ taskId }) => {
    const { record } = await found(taskId);
    // A terminal task stays as it ended: the same empty answer (cancel is idempotent).
    if (!TERMINAL.has(record.status) && !cancelLocally(record.taskId)) await records.requestCancel(user, record.taskId);
    return {};
  });
  server.server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async ({ taskId }) => {
    await found(taskId);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This task asks for no input: MCC asks for missing parameters before a task starts.');
  });
}

// The task as tasks/get shows it: a working task whose instance stopped
// writing long ago has lost it, and says so instead of working forever.
function shown({ record, cancelRequested }: { record: TaskRecord; cancelRequested: boolean }): Record<string, unknown> {
  if (record.status === 'working' && Date.now() - Date.parse(record.lastUpdatedAt) > ORPHAN_AFTER_MS) {
    return { ...record, status: 'failed', statusMessage: 'lost', error: { code: -32603, message: 'The server instance running this task stopped before it ended.' } };
  }
  if (record.status === 'working' && cancelRequested) return { ...record, statusMessage: 'cancelling' };
  return { ...record };
}
