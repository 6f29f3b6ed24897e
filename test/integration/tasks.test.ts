// The 2026-07-28 tasks extension against a real `mcc serve`, on the wire: a
// long execute or direct tool call answers with a task at once; tasks/get
// shows its latest output line while it runs and the same answer a plain
// call gives when it ends; tasks/cancel kills the process group; a task is
// its starter's alone. (The team test runs a task across two instances.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawModern } from '../support/modern-client';
import { running, settled, startLegacyTask, TASK_CATALOG } from '../support/task-helpers';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { FIXTURES, connect, startServe, tempDir, type ServeHandle } from './serve-process';

const OWNER = 'owner-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789';

describe('tasks (2026-07-28 extension) on mcc serve', () => {
  let h: ServeHandle;
  before(async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'jobs.yaml'), TASK_CATALOG);
    h = await startServe(['--tools', join(dir, 'jobs.yaml'), '--users', join(FIXTURES, 'users.yaml'), '--user', 'owner', '--expose', 'both', '--state', join(dir, 's.json')], {
      MCC_TOKEN: OWNER,
      BOB_TOKEN_SHA: '0'.repeat(64),
    });
  });
  after(async () => {
    assert.equal(await h.stop(), 0);
  });

  test('a long call answers with a task at once; tasks/get shows its output, then the answer a plain call gives', async () => {
    const started = Date.now();
    const created = await rawModern(h.url, OWNER, 'tools/call', { name: 'execute', arguments: { key: 'job.slow' } }, { tasks: true });
    assert.ok(Date.now() - started < 2400, 'answered before the run ended');
    const task = created.result ?? {};
    assert.equal(task.resultType, 'task');
    assert.equal(task.status, 'working');
    assert.equal(task.pollIntervalMs, 2000);
    assert.ok(Number.isInteger(task.ttlMs) && (task.ttlMs as number) > 0);
    assert.equal('task' in task || 'result' in task || 'ttl' in task || 'pollInterval' in task, false);
    const taskId = task.taskId as string;
    const first = await rawModern(h.url, OWNER, 'tasks/get', { taskId }, { tasks: true });
    assert.equal(first.result?.taskId, taskId, 'found at once: created durably before the answer');
    const { task: done, messages } = await settled(h.url, OWNER, taskId);
    assert.equal(done.status, 'completed');
    assert.ok(messages.some((m) => m.includes('first')), `the latest output line as the status: ${messages.join(' | ')}`);
    const plain = await rawModern(h.url, OWNER, 'tools/call', { name: 'execute', arguments: { key: 'job.slow' } });
    assert.equal(plain.result?.resultType, 'complete');
    const strip = (r: Record<string, unknown>): unknown => ({ ...r, _meta: undefined, resultType: undefined, structuredContent: { ...(r.structuredContent as object), duration_ms: 0 } });
    assert.deepEqual(strip(done.result as Record<string, unknown>), strip(plain.result ?? {}));
  });

  test('a direct tool runs as a task too; a quick call answers at once as a plain call', async () => {
    const created = await rawModern(h.url, OWNER, 'tools/call', { name: 'job__slow', arguments: {} }, { tasks: true });
    assert.equal(created.result?.resultType, 'task');
    const { task } = await settled(h.url, OWNER, created.result?.taskId as string);
    assert.deepEqual((task.result as { content: unknown }).content, [{ type: 'text', text: 'first\nlast\n' }]);
    const quick = await rawModern(h.url, OWNER, 'tools/call', { name: 'job__quick', arguments: {} }, { tasks: true });
    assert.equal(quick.result?.resultType, 'complete');
    assert.deepEqual(quick.result?.content, [{ type: 'text', text: 'quick\n' }]);
  });

  test('without the extension: a plain answer, and tasks/* are -32021', async () => {
    const plain = await rawModern(h.url, OWNER, 'tools/call', { name: 'execute', arguments: { key: 'job.slow' } });
    assert.equal(plain.result?.resultType, 'complete');
    const created = await rawModern(h.url, OWNER, 'tools/call', { name: 'execute', arguments: { key: 'job.slow' } }, { tasks: true });
    const taskId = created.result?.taskId as string;
    const refused = await rawModern(h.url, OWNER, 'tasks/get', { taskId });
    assert.equal(refused.error?.code, -32021);
    await settled(h.url, OWNER, taskId);
  });

  test("another user's task id reads exactly like an unknown one", async () => {
    const created = await rawModern(h.url, OWNER, 'tools/call', { name: 'execute', arguments: { key: 'job.slow' } }, { tasks: true });
    const taskId = created.result?.taskId as string;
    const theirs = await rawModern(h.url, ALICE, 'tasks/get', { taskId }, { tasks: true });
    const unknown = await rawModern(h.url, ALICE, 'tasks/get', { taskId: 'A'.repeat(22) }, { tasks: true });
    assert.equal(theirs.error?.code, -32602);
    assert.equal(unknown.error?.code, -32602);
    assert.equal(theirs.error?.message.replace(taskId, 'ID'), unknown.error?.message.replace('A'.repeat(22), 'ID'));
    const cancel = await rawModern(h.url, ALICE, 'tasks/cancel', { taskId }, { tasks: true });
    assert.equal(cancel.error?.code, -32602);
    assert.equal((await settled(h.url, OWNER, taskId)).task.status, 'completed', 'the owner\'s task ran on');
  });

  test('tasks/cancel kills the process group; the task reads cancelled; a second cancel is the same empty answer', async () => {
    const created = await rawModern(h.url, OWNER, 'tools/call', { name: 'execute', arguments: { key: 'job.forever' } }, { tasks: true });
    const taskId = created.result?.taskId as string;
    assert.ok(running('sleep 47.31'));
    const cancel = await rawModern(h.url, OWNER, 'tasks/cancel', { taskId }, { tasks: true });
    assert.equal(cancel.result?.resultType, 'complete');
    const { task } = await settled(h.url, OWNER, taskId);
    assert.equal(task.status, 'cancelled');
    assert.equal('result' in task, false);
    const deadline = Date.now() + 5000;
    while (running('sleep 47.31') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(running('sleep 47.31'), false, 'the process is gone');
    const again = await rawModern(h.url, OWNER, 'tasks/cancel', { taskId }, { tasks: true });
    assert.equal(again.result?.resultType, 'complete');
  });

  test('2025-11-25: a task-augmented call answers {task}; tasks/get, tasks/result (the plain answer) and tasks/cancel', async () => {
    const c = await connect({ url: h.url, token: OWNER });
    const alice = await connect({ url: h.url, token: ALICE });
    try {
      assert.deepEqual(c.getServerCapabilities()?.tasks, { requests: { tools: { call: {} } }, cancel: {} });
      const taskId = await startLegacyTask(c, 'execute', { key: 'job.slow' });
      assert.equal((await c.experimental.tasks.getTask(taskId)).taskId, taskId);
      await assert.rejects(alice.experimental.tasks.getTask(taskId), (e: { code?: number }) => e.code === -32602, "another user's id is unknown");
      const result = await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.deepEqual(result.content, [{ type: 'text', text: 'first\nlast\n' }]);
      assert.equal((result.structuredContent as { returncode: number }).returncode, 0);
      assert.equal((await c.experimental.tasks.getTask(taskId)).status, 'completed');
      // The same record on the other revision.
      assert.equal((await rawModern(h.url, OWNER, 'tasks/get', { taskId }, { tasks: true })).result?.status, 'completed');

      const endless = await startLegacyTask(c, 'job__forever', {});
      assert.equal((await c.experimental.tasks.cancelTask(endless)).status, 'cancelled');
      const deadline = Date.now() + 5000;
      while (running('sleep 47.31') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.equal(running('sleep 47.31'), false, 'the process is gone');
      assert.equal((await c.experimental.tasks.getTask(endless)).status, 'cancelled');
      await assert.rejects(c.experimental.tasks.cancelTask(endless), /already ended/);
    } finally {
      await c.close();
      await alice.close();
    }
  });
});
