// Feedback while a tool runs, through the SDK's Client against the real
// `mcc serve`: progress notifications carrying the latest output, heartbeats
// for a silent tool, log messages at the level the caller set, all only on
// the caller's own session; and the answer to a cancelled call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { REPO, alive, connect, startServe, tempDir, text, type ServeHandle } from './serve-process';

const TOOLS = join(REPO, 'test', 'fixtures', 'progress', 'tools.yaml');
const USERS = join(REPO, 'test', 'fixtures', 'integration', 'users.yaml');

interface Seen {
  at: number;
  p: Progress;
}

async function runWithProgress(c: Client, key: string, params: Record<string, unknown>): Promise<{ r: CallToolResult; seen: Seen[] }> {
  const seen: Seen[] = [];
  const r = (await c.callTool({ name: 'execute', arguments: { key, params } }, undefined, {
    onprogress: (p) => seen.push({ at: Date.now(), p }),
  })) as CallToolResult;
  return { r, seen };
}

function logsOf(c: Client): LoggingMessageNotification['params'][] {
  const logs: LoggingMessageNotification['params'][] = [];
  c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
  });
  return logs;
}

void describe('progress and log messages over MCP', () => {
  let h: ServeHandle;
  before(async () => {
    const dir = tempDir();
    h = await startServe(['--tools', TOOLS, '--users', USERS, '--state', join(dir, 's.json')], { BOB_TOKEN_SHA: '0'.repeat(64) });
  });
  after(async () => {
    await h.stop();
  });

  void test('progress notifications carry the latest output lines, increase, and give the time limit as total', async () => {
    const c = await connect(h);
    const { r, seen } = await runWithProgress(c, 'slow.ticks', { count: 5, every: 0.6 });
    assert.ok(!r.isError, text(r));
    const messages = seen.map((s) => s.p.message ?? '');
    assert.equal(messages[0], 'started slow.ticks');
    assert.ok(messages.some((m) => /^tick \d of 5$/m.test(m)), `no output in ${JSON.stringify(messages)}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].p.progress > seen[i - 1].p.progress, 'progress increases');
    assert.ok(seen.every((s) => s.p.total === 60), 'total is the tool\'s timeout');
    assert.ok(seen.length >= 3 && seen.length <= 8, `output-driven updates are paced, got ${seen.length}`);
    await c.close();
  });

  void test('a terminal tool\'s progress message is clean text (no escapes, a \\r bar shows its last state)', async () => {
    const c = await connect(h);
    const { r, seen } = await runWithProgress(c, 'slow.bar', {});
    assert.ok(!r.isError, text(r));
    const messages = seen.map((s) => s.p.message ?? '');
    assert.ok(messages.some((m) => /loading (50|90)%/.test(m)), JSON.stringify(messages));
    assert.ok(messages.every((m) => !m.includes('\u001b') && !m.includes('\r')), JSON.stringify(messages));
    assert.ok(messages.every((m) => m.length <= 300));
    await c.close();
  });

  void test('a silent tool still gets a heartbeat at least every 5 s', async () => {
    const c = await connect(h);
    const started = Date.now();
    const { r, seen } = await runWithProgress(c, 'slow.silent', { seconds: 11 });
    assert.ok(!r.isError, text(r));
    const times = [started, ...seen.map((s) => s.at), Date.now()];
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.ok(Math.max(...gaps) <= 5000, `gaps ${JSON.stringify(gaps)}`);
    assert.ok(seen.some((s) => /still running \(\d+ s, no new output\)/.test(s.p.message ?? '')), JSON.stringify(seen.map((s) => s.p.message)));
    await c.close();
  });

  void test('log messages (start, stderr, exit) reach only the calling session, at the level it set', async () => {
    const caller = await connect(h, { name: 'caller' });
    const sameUser = await connect(h, { name: 'same-user' });
    const otherUser = await connect(h, { token: 'alice-token-0123456789', name: 'alice' });
    const [mine, sibling, alice] = [logsOf(caller), logsOf(sameUser), logsOf(otherUser)];
    // A GET stream each, so a message sent to the wrong session would arrive.
    await Promise.all([sameUser.setLoggingLevel('debug'), otherUser.setLoggingLevel('debug')]);

    const r = (await caller.callTool({ name: 'execute', arguments: { key: 'slow.chatty_stderr' } })) as CallToolResult;
    assert.ok(!r.isError, text(r));
    await sleep(300);
    const levels = mine.map((m) => `${m.level}:${String(m.data).split('\n')[0]}`);
    assert.equal(mine[0].level, 'info');
    assert.match(String(mine[0].data), /started slow\.chatty_stderr/);
    assert.ok(mine.some((m) => m.level === 'warning' && /warn one\nwarn two/.test(String(m.data))), JSON.stringify(levels));
    assert.match(String(mine[mine.length - 1].data), /exited with code 0/);
    assert.deepEqual(sibling, [], 'another session of the same user hears nothing');
    assert.deepEqual(alice, [], 'another user hears nothing');

    mine.length = 0;
    await caller.setLoggingLevel('error');
    await caller.callTool({ name: 'execute', arguments: { key: 'slow.chatty_stderr' } });
    await sleep(300);
    assert.deepEqual(mine, [], 'below the level set, nothing is sent');
    await assert.rejects(caller.setLoggingLevel('loud' as 'error'), /level must be one of/);
    for (const c of [caller, sameUser, otherUser]) await c.close();
  });

  void test('a cancelled call kills its process group, and its answer still arrives (the client ignores it)', async () => {
    const c = await connect(h);
    const errors: string[] = [];
    c.onerror = (e) => errors.push(e.message);
    const pidfile = join(tempDir(), 'pid');
    const abort = new AbortController();
    const call = c.callTool({ name: 'execute', arguments: { key: 'slow.wait_for_pidfile', params: { pidfile } } }, undefined, { signal: abort.signal });
    for (let i = 0; i < 100 && !existsSync(pidfile); i++) await sleep(50);
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    assert.ok(alive(pid));
    abort.abort('changed my mind');
    await assert.rejects(call);
    for (let i = 0; i < 60 && alive(pid); i++) await sleep(50);
    assert.equal(alive(pid), false, 'the tool was killed');
    for (let i = 0; i < 60 && errors.length === 0; i++) await sleep(50);
    assert.ok(errors.some((e) => /unknown message ID/.test(e) && /was stopped with return code -1/.test(e)), JSON.stringify(errors));
    // The session is still usable.
    const r = (await c.callTool({ name: 'execute', arguments: { key: 'slow.ticks', params: { count: 1, every: 0 } } })) as CallToolResult;
    assert.ok(!r.isError);
    await c.close();
  });

  void test('execute declares its output schema and always answers structuredContent; inputs have explicit types', async () => {
    const c = await connect(h);
    const tools = (await c.listTools()).tools;
    const execute = tools.find((t) => t.name === 'execute');
    assert.deepEqual(execute?.outputSchema?.required, ['returncode', 'stdout', 'duration_ms', 'truncated']);
    const params = (execute?.inputSchema.properties as Record<string, { anyOf: Array<{ type: string }> }>).params;
    assert.deepEqual(params.anyOf.map((b) => b.type), ['object', 'string']);
    const value = (tools.find((t) => t.name === 'set_session')?.inputSchema.properties as Record<string, { anyOf: Array<{ type: string }> }>).value;
    assert.deepEqual(value.anyOf.map((b) => b.type).sort(), ['array', 'boolean', 'null', 'number', 'object', 'string']);

    const ok = (await c.callTool({ name: 'execute', arguments: { key: 'slow.ticks', params: { count: 1, every: 0 } } })) as CallToolResult;
    assert.equal(ok.structuredContent?.returncode, 0);
    assert.equal(ok.structuredContent?.stdout, text(ok));
    assert.equal(ok.structuredContent?.truncated, false);
    const refused = (await c.callTool({ name: 'execute', arguments: { key: 'slow.nope' } })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent?.returncode, -1);
    assert.match(String(refused.structuredContent?.stderr), /Unknown tool/);
    // set_session still stores every JSON type as it came.
    for (const v of ['s', 1.5, true, null, [1, 'a'], { a: { b: [null] } }]) {
      const r = (await c.callTool({ name: 'set_session', arguments: { name: 'v', value: v } })) as CallToolResult;
      assert.ok(!r.isError, text(r));
      const got = (await c.callTool({ name: 'get_session', arguments: { name: 'v' } })) as CallToolResult;
      assert.deepEqual(JSON.parse(text(got)), v);
    }
    await c.close();
  });
});
