// MCP 2026-07-28 clients (the SDK v2 Client) against a real `mcc serve`,
// beside 2025-11-25 clients on the same endpoint: no MCP session, so the
// variables live behind a session handle the server issues and binds to the
// caller; missing params come back as an input-required result.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { callTool, connectModern, textOf } from '../support/modern-client';
import { CLI, FIXTURES, connect as connectLegacy, okText as legacyOkText, startServe, tempDir, type ServeHandle } from './serve-process';

const OWNER = 'owner-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789';

async function ok(c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
  return r;
}

describe('MCP 2026-07-28 on mcc serve', () => {
  let h: ServeHandle;
  let catalog: string;
  before(async () => {
    const dir = tempDir();
    catalog = join(dir, 'tools.yaml');
    copyFileSync(join(FIXTURES, 'tools.yaml'), catalog);
    const fnCatalog = join(FIXTURES, 'fn-tools.yaml');
    h = await startServe(['--watch', '--tools', catalog, '--tools', fnCatalog, '--users', join(FIXTURES, 'users.yaml'), '--user', 'owner', '--state', join(dir, 's.json')], {
      MCC_TOKEN: OWNER,
      BOB_TOKEN_SHA: '0'.repeat(64),
    });
  });
  after(async () => {
    assert.equal(await h.stop(), 0);
  });

  test('negotiates 2026-07-28 without an MCP session; lists tools in a stable order; search and execute work', async () => {
    const c = await connectModern(h.url, { token: OWNER });
    try {
      assert.equal(c.getNegotiatedProtocolVersion(), '2026-07-28');
      const first = (await c.listTools()).tools.map((t) => t.name);
      assert.deepEqual(first, ['search', 'execute', 'describe_tools', 'get_session', 'set_session']);
      assert.deepEqual((await c.listTools()).tools.map((t) => t.name), first, 'the same order every time');
      assert.match(textOf(await ok(c, 'search', { query: 'quoted word' })), /test\.echo_args/);
      const run = await ok(c, 'execute', { key: 'test.echo_args', params: { word: 'hi', n: 3 } });
      assert.equal(textOf(run), 'hi:3:s3cret');
      assert.equal((run.structuredContent as { returncode: number }).returncode, 0);
    } finally {
      await c.close();
    }
  });

  test('set_session issues a handle; with it, get_session, MCC_CTX_<NAME> and write-back reach the same bucket on later calls', async () => {
    const c = await connectModern(h.url, { token: OWNER });
    try {
      const set = await ok(c, 'set_session', { name: 'target', value: '10.0.0.5' });
      const handle = (set.structuredContent as { session: string }).session;
      assert.match(handle, /^mcc-h1\./);
      assert.ok(textOf(set).includes(handle), 'the text names the handle for agents that read text');
      assert.equal(textOf(await ok(c, 'get_session', { name: 'target', session: handle })), '"10.0.0.5"');
      assert.equal(textOf(await ok(c, 'get_session', { name: 'target' })), 'null', 'without the handle: a bucket of its own');
      assert.match(textOf(await ok(c, 'execute', { key: 'test.ctx_echo', session: handle })), /user=owner\ntarget=10\.0\.0\.5\n/);
      await ok(c, 'execute', { key: 'fn.bump', params: { by: 2 }, session: handle });
      assert.equal(textOf(await ok(c, 'get_session', { name: 'count', session: handle })), '2', 'the function tool wrote back');
      // A run that starts a bucket and leaves variables in it says which handle reaches them.
      const fresh = await ok(c, 'execute', { key: 'fn.bump', params: { by: 5 } });
      const second = (fresh.structuredContent as { session?: string }).session;
      assert.ok(second && second !== handle);
      assert.equal(textOf(await ok(c, 'get_session', { name: 'count', session: second })), '5');
    } finally {
      await c.close();
    }
  });

  test("another user's handle reads exactly like a made-up one, and reaches nothing", async () => {
    const owner = await connectModern(h.url, { token: OWNER });
    const alice = await connectModern(h.url, { token: ALICE });
    try {
      const handle = (await ok(owner, 'set_session', { name: 'secret', value: 'owner-only' })).structuredContent as { session: string };
      const stolen = await callTool(alice, 'get_session', { name: 'secret', session: handle.session });
      const madeUp = await callTool(alice, 'get_session', { name: 'secret', session: 'mcc-h1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA' });
      assert.equal(stolen.isError, true);
      assert.equal(textOf(stolen), textOf(madeUp));
      assert.match(textOf(stolen), /Unknown session handle/);
      const write = await callTool(alice, 'set_session', { name: 'secret', value: 'alice-was-here', session: handle.session });
      assert.equal(write.isError, true);
      const run = await callTool(alice, 'execute', { key: 'test.ctx_echo', session: handle.session });
      assert.equal(run.isError, true);
      assert.equal(textOf(await ok(owner, 'get_session', { name: 'secret', session: handle.session })), '"owner-only"', 'untouched');
    } finally {
      await owner.close();
      await alice.close();
    }
  });

  test('X-MCC-Session-Key names the bucket for a 2026-07-28 client too, shared with a 2025-11-25 client of the same user', async () => {
    const modern = await connectModern(h.url, { token: OWNER, sessionKey: 'laptop' });
    const legacy = await connectLegacy({ url: h.url, token: OWNER }, { sessionKey: 'laptop' });
    try {
      await ok(modern, 'set_session', { name: 'budget', value: 1000 });
      assert.equal(await legacyOkText(legacy, 'get_session', { name: 'budget' }), '1000');
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  test('missing required params: an input-required result, the form answered, the call made again, the tool run once', async () => {
    const forms: string[] = [];
    const c = await connectModern(h.url, {
      token: OWNER,
      answer: (message) => {
        forms.push(message);
        return { action: 'accept', content: { word: 'asked' } };
      },
    });
    try {
      assert.equal(textOf(await ok(c, 'execute', { key: 'test.echo_args' })), 'asked:2:s3cret');
      assert.equal(forms.length, 1);
      assert.match(forms[0], /needs word/);
      const runs = h.stderr().match(/run \S+ test\.echo_args by owner/g) ?? [];
      assert.ok(runs.length >= 1);
      assert.match(h.stderr(), /test\.echo_args \{\} -> error \('test\.echo_args' did not run: waiting for the user's answer/);
    } finally {
      await c.close();
    }
    const declines = await connectModern(h.url, { token: OWNER, answer: () => ({ action: 'decline' }) });
    try {
      const r = await callTool(declines, 'execute', { key: 'test.echo_args' });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /declined to give 'word'/);
    } finally {
      await declines.close();
    }
  });

  test('log messages only for a call that names a level in _meta (logging/setLevel is gone)', async () => {
    const c = await connectModern(h.url, { token: OWNER });
    const logs: string[] = [];
    c.setNotificationHandler('notifications/message', (n) => void logs.push(`${n.params.level} ${JSON.stringify(n.params.data)}`));
    try {
      await callTool(c, 'execute', { key: 'test.fails' });
      assert.equal(logs.length, 0, `no level asked: no log messages, got ${logs.join('; ')}`);
      const r = (await c.callTool({ name: 'execute', arguments: { key: 'test.fails' }, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } }));
      assert.equal(r.isError, true);
      assert.ok(logs.some((l) => l.startsWith('info ') && l.includes('test.fails')), logs.join('\n'));
      assert.ok(logs.some((l) => l.startsWith('error ')), 'the failed exit at error level');
    } finally {
      await c.close();
    }
  });

  test('subscriptions/listen hears tools/list_changed when the catalog changes', async () => {
    const c = await connectModern(h.url, { token: OWNER });
    let changed = 0;
    c.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    const sub = await c.listen({ toolsListChanged: true });
    try {
      assert.equal(sub.honoredFilter.toolsListChanged, true);
      // Written whole under another name, then renamed: the watcher never sees half a file.
      const next = `${catalog}.next`;
      writeFileSync(next, `${readFileSync(catalog, 'utf8')}\n  - name: added_later\n    description: Added while listening.\n    exec: 'echo later'\n`);
      renameSync(next, catalog);
      // Other reloads may come first (the watched folders see more than this edit): each
      // notification is followed by a look, until one shows the new tool.
      const deadline = Date.now() + 10_000;
      let seen = 0;
      let found = false;
      while (!found && Date.now() < deadline) {
        if (changed > seen) {
          seen = changed;
          found = textOf(await ok(c, 'search', { query: 'added_later' })).includes('test.added_later');
        } else await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(found, `a list_changed announced the new tool (${changed} heard)`);
      assert.equal(textOf(await ok(c, 'execute', { key: 'test.added_later' })), 'later\n');
    } finally {
      await sub.close();
      await c.close();
    }
  });
});

describe('MCP 2026-07-28 over stdio', () => {
  test('a 2026-07-28 client and a 2025-11-25 client each get the one bucket of the stdio server', async () => {
    const state = join(tempDir(), 's.json');
    const args = [CLI, 'serve', '--stdio', '--session-key', 'desk', '--tools', join(FIXTURES, 'tools.yaml'), '--state', state];
    const modern = new Client({ name: 'modern-stdio', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
    try {
      assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
      const set = await ok(modern, 'set_session', { name: 'target', value: 'db-1' });
      assert.equal(set.structuredContent, undefined, 'the stdio client has its bucket: no handle to carry');
      assert.match(textOf(await ok(modern, 'execute', { key: 'test.ctx_echo' })), /target=db-1\n/);
    } finally {
      await modern.close();
    }
    // The next client of the same key (today's revision) finds what was stored.
    const legacy = new Client({ name: 'legacy-stdio', version: '1.0.0' });
    await legacy.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
    try {
      assert.equal(legacy.getNegotiatedProtocolVersion(), '2025-11-25');
      assert.equal(textOf(await ok(legacy, 'get_session', { name: 'target' })), '"db-1"');
    } finally {
      await legacy.close();
    }
  });
});
