// `mcc serve --metrics`: the real server (dist/cli.js), real MCP clients of
// three kinds of caller, and its /metrics read back: the call counter by
// tool, result and kind of caller with the values of the calls made, a
// sandbox refusal, sessions, buckets and store timings on a real SQLite
// file; nothing secret in the text; the MCP port serves no /metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, okText, REPO, startServe, tempDir, type ServeHandle } from './serve-process';
import { samples, value } from '../support/exposition';

const TOKEN = `metrics-owner-token-${process.pid}-0123456789`;
const ALICE_TOKEN = 'metrics-alice-token-0123456789';
const SECRET_VALUE = 'value-nobody-may-see-0123';
const CATALOG = `groups: [public]
tools:
  - name: hello
    exec: echo hello
  - name: fails
    exec: 'echo no; exit 3'
  - name: boxed
    sandbox: default
    exec: echo boxed
`;

/** A serve on its own catalog and users file; PATH without bwrap, so a tool that wants a sandbox is refused. */
async function serve(extra: string[]): Promise<ServeHandle> {
  const dir = tempDir('mcc-metrics-');
  writeFileSync(join(dir, 'tools.yaml'), CATALOG);
  writeFileSync(join(dir, 'users.yaml'), `users:\n  - user: alice\n    groups: [ops]\n    token: ${ALICE_TOKEN}\nanonymous: true\n`);
  const emptyBin = join(dir, 'bin');
  mkdirSync(emptyBin);
  const args = ['--tools', join(dir, 'tools.yaml'), '--users', join(dir, 'users.yaml'), '--store', `sqlite:${join(dir, 's.db')}`, '--user', 'owner', '--metrics', '127.0.0.1:0', ...extra];
  return startServe(args, { MCC_TOKEN: TOKEN, PATH: emptyBin });
}

async function scrape(h: ServeHandle): Promise<string> {
  assert.ok(h.metrics, 'the JSON line names the metrics endpoint');
  const r = await fetch(h.metrics);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return r.text();
}

const execute = (c: Client, key: string): ReturnType<typeof call> => call(c, 'execute', { key, params: {} });

describe('mcc serve --metrics', { timeout: 60_000 }, () => {
  let h: ServeHandle;
  let owner: Client;
  let alice: Client;
  let anon: Client;

  before(async () => {
    h = await serve([]);
    owner = await connect(h);
    alice = await connect(h, { token: ALICE_TOKEN });
    anon = await connect(h, { token: null });
  });
  after(async () => {
    await Promise.allSettled([owner?.close(), alice?.close(), anon?.close()]);
    await h?.stop();
  });

  test('the startup line and log name the endpoint, on loopback', () => {
    assert.match(h.metrics ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.notEqual(new URL(h.metrics ?? '').port, String(h.port));
    assert.match(h.stderr(), new RegExp(`metrics at ${(h.metrics ?? '').replace(/[.]/g, '\\.')}\\n`));
  });

  test('calls are counted by tool, result and kind of caller, with the values of the calls made', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await okText(owner, 'execute', { key: 'public.hello' })).trim(), 'hello');
    for (let i = 0; i < 2; i++) await okText(alice, 'execute', { key: 'public.hello' });
    assert.equal((await execute(owner, 'public.fails')).isError, true);
    assert.equal((await execute(owner, 'made.up.by.the.caller')).isError, true);
    assert.equal((await execute(owner, 'public.boxed')).isError, true);
    await okText(anon, 'search', { query: 'hello' });
    await okText(owner, 'set_session', { name: 'password', value: SECRET_VALUE });
    const text = await scrape(h);
    const calls = (labels: Record<string, string>): number | undefined => value(text, 'mcc_calls_total', labels);
    assert.equal(calls({ tool: 'public.hello', result: 'ok', principal: 'owner' }), 3);
    assert.equal(calls({ tool: 'public.hello', result: 'ok', principal: 'user' }), 2);
    assert.equal(calls({ tool: 'public.fails', result: 'tool_error', principal: 'owner' }), 1);
    assert.equal(calls({ tool: '(unknown)', result: 'refused', principal: 'owner' }), 1);
    assert.equal(calls({ tool: 'public.boxed', result: 'refused', principal: 'owner' }), 1);
    assert.equal(calls({ tool: 'search', result: 'ok', principal: 'anonymous' }), 1);
    assert.equal(calls({ tool: 'set_session', result: 'ok', principal: 'owner' }), 1);
    assert.equal(value(text, 'mcc_call_duration_seconds_count', { tool: 'public.hello', result: 'ok' }), 5);
    assert.equal(value(text, 'mcc_sandbox_refusals_total', { tool: 'public.boxed' }), 1);
    assert.equal(value(text, 'mcc_mcp_sessions'), 3);
    assert.equal(value(text, 'mcc_running_calls'), 0);
    assert.ok((value(text, 'mcc_buckets') ?? 0) >= 1, 'the owner bucket set_session wrote');
    assert.ok((value(text, 'mcc_store_operation_duration_seconds_count', { operation: 'change' }) ?? 0) >= 1);
    assert.equal(value(text, 'mcc_catalog_loads_total'), 1);
    assert.equal(value(text, 'mcc_catalog_tools'), 3);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    assert.equal(value(text, 'mcc_build_info', { version: pkg.version }), 1);
    assert.equal(samples(text, 'process_resident_memory_bytes').length, 1);
    for (const secret of [TOKEN, ALICE_TOKEN, SECRET_VALUE, 'alice', 'made.up']) assert.ok(!text.includes(secret), `the metrics show ${secret}`);
  });

  test('the MCP port serves no /metrics, with a token or without; its responses are counted by status', async () => {
    const before = await scrape(h);
    const count = (text: string, code: string): number => value(text, 'mcc_http_responses_total', { code }) ?? 0;
    const mcpMetrics = new URL('/metrics', h.url).href;
    assert.equal((await fetch(mcpMetrics)).status, 404);
    assert.equal((await fetch(mcpMetrics, { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 404);
    assert.equal((await fetch(new URL('/mcp', h.metrics).href)).status, 404);
    const wrongToken = await fetch(h.url, { method: 'POST', headers: { Authorization: 'Bearer wrong-token-0123456789', 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(wrongToken.status, 401);
    const after = await scrape(h);
    assert.equal(count(after, '404') - count(before, '404'), 2);
    assert.equal(count(after, '401') - count(before, '401'), 1);
    assert.ok(count(after, '200') >= 10, 'the calls before');
    assert.ok(!after.includes('wrong-token'));
  });
});

describe('mcc serve --metrics --metrics-users', { timeout: 60_000 }, () => {
  test('labels the calls with the user name', async () => {
    const h = await serve(['--metrics-users']);
    const alice = await connect(h, { token: ALICE_TOKEN });
    try {
      await okText(alice, 'execute', { key: 'public.hello' });
      const text = await scrape(h);
      assert.equal(value(text, 'mcc_calls_total', { tool: 'public.hello', result: 'ok', principal: 'user', user: 'alice' }), 1);
    } finally {
      await alice.close();
      await h.stop();
    }
  });
});
