// What the task tests share: a catalog with a slow, an endless and a quick
// tool, polling a task until it ends, and looking for a process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rawModern } from './modern-client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

export const TASK_CATALOG = `groups: [job]
tools:
  - name: slow
    description: Prints a line, waits, prints another.
    exec: 'echo first; sleep 2.5; echo last'
  - name: forever
    description: Runs until stopped.
    exec: 'echo tick; sleep 47.31; echo never'
  - name: quick
    description: Answers at once.
    exec: 'echo quick'
`;

/** Polls tasks/get until the task leaves 'working'. */
export async function settled(url: string, token: string, taskId: string): Promise<{ task: Record<string, unknown>; messages: string[] }> {
  const messages: string[] = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const r = await rawModern(url, token, 'tasks/get', { taskId }, { tasks: true });
    assert.ok(r.result, `tasks/get failed: ${JSON.stringify(r.error)}`);
    if (typeof r.result.statusMessage === 'string') messages.push(r.result.statusMessage);
    if (r.result.status !== 'working') return { task: r.result, messages };
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`task ${taskId} still working after 20 s`);
}

/** Whether a process whose command line has `marker` still runs. */
export function running(marker: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}


/** A 2025-11-25 task-augmented tools/call with the SDK 1.x client; the task it answers with. */
export async function startLegacyTask(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  assert.equal(created.task.status, 'working');
  assert.equal(created.task.pollInterval, 2000);
  return created.task.taskId;
}
