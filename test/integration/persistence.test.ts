// The store survives a restart (same --state, same X-MCC-Session-Key),
// expires after --session-ttl, and a SIGTERM exits 0 with everything flushed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, FIXTURES, okText, startServe, tempDir } from './serve-process';

const TOOLS = join(FIXTURES, 'tools.yaml');

describe('persistence and lifetime', () => {
  test('variables survive a restart with the same state file and session key', async () => {
    const state = join(tempDir(), 'state.json');
    const env = { MCC_TOKEN: 'restart-token-0123456789abcdef' };
    const first = await startServe(['--tools', TOOLS, '--state', state], env);
    const c1 = await connect(first, { sessionKey: 'resume-me' });
    await okText(c1, 'set_session', { name: 'cursor', value: 42 });
    await okText(c1, 'set_session', { name: 'hosts', value: ['a', 'b'] });
    await c1.close();
    assert.equal(await first.stop('SIGTERM'), 0);

    const second = await startServe(['--tools', TOOLS, '--state', state], env);
    const c2 = await connect(second, { sessionKey: 'resume-me' });
    assert.equal(await okText(c2, 'get_session', { name: 'cursor' }), '42');
    assert.equal(await okText(c2, 'get_session', { name: 'hosts' }), '["a","b"]');
    const other = await connect(second, { sessionKey: 'another-key' });
    assert.equal(await okText(other, 'get_session', { name: 'cursor' }), 'null');
    await Promise.all([c2.close(), other.close()]);
    assert.equal(await second.stop('SIGINT'), 0);
    // --state without --store: the SQLite file beside it. Identity keys are derived, never stored.
    const db = new Database(join(dirname(state), 'state.db'), { readonly: true });
    const names = (db.prepare("SELECT name FROM entries WHERE name <> ''").all() as Array<{ name: string }>).map((r) => r.name);
    db.close();
    assert.deepEqual(names.sort(), ['cursor', 'hosts']);
  });

  test('a bucket expires after the session TTL', async () => {
    const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json'), '--session-ttl', '1']);
    try {
      const c = await connect(h, { sessionKey: 'short-lived' });
      await okText(c, 'set_session', { name: 'soon_gone', value: 'x' });
      assert.equal(await okText(c, 'get_session', { name: 'soon_gone' }), '"x"');
      await sleep(2200);
      assert.equal(await okText(c, 'get_session', { name: 'soon_gone' }), 'null');
      await c.close();
    } finally {
      await h.stop();
    }
  });

  test('a missing --tools path is a usage error', async () => {
    await assert.rejects(startServe(['--tools', '/nonexistent/tools.yaml']), /no such file/);
  });
});
