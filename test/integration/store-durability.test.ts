// What `mcc serve` promises about its SQLite store: an acknowledged
// set_session survives kill -9 at any moment, and a version 1 state file is
// imported on the first start, once, and kept as a backup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bucketIdOf } from '../../src/core/session/bucket-id';
import { FIXTURES, call, connect, okText, startServe, tempDir, text } from './serve-process';

const TOOLS = join(FIXTURES, 'tools.yaml');
const ENV = { MCC_TOKEN: 'durability-token-0123456789abcdef' };

test('every set_session acknowledged before a kill -9 is there after the restart', async () => {
  const store = `sqlite:${join(tempDir(), 'sessions.db')}`;
  const args = ['--tools', TOOLS, '--store', store, '--state', join(tempDir(), 'none.json')];
  const first = await startServe(args, ENV);
  const clients = await Promise.all(Array.from({ length: 4 }, () => connect(first, { sessionKey: 'crash' })));
  const acknowledged: string[] = [];
  let stop = false;
  // Four writers, each with several calls in flight, until the server dies under them.
  const writers = clients.flatMap((c, w) =>
    Array.from({ length: 4 }, async (_, lane) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}_${lane}_${i}`;
        const r = await call(c, 'set_session', { name, value: { w, lane, i } }).catch(() => undefined);
        if (r && !r.isError) acknowledged.push(name);
        if (!r) return;
      }
    }),
  );
  while (acknowledged.length < 400) await new Promise((r) => setTimeout(r, 5));
  first.proc.kill('SIGKILL');
  await first.stop();
  stop = true;
  await Promise.all(writers);
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));

  const second = await startServe(args, ENV);
  const c = await connect(second, { sessionKey: 'crash' });
  for (const name of acknowledged) {
    const [w, lane, i] = name.slice(1).split('_').map(Number);
    assert.equal(await okText(c, 'get_session', { name }), JSON.stringify({ w, lane, i }), `acknowledged ${name} was lost`);
  }
  await c.close();
  assert.equal(await second.stop(), 0);
});

test('a version 1 state file is imported on the first start, kept as a backup, and not imported again', async () => {
  const xdg = tempDir();
  mkdirSync(join(xdg, 'mcc'));
  const now = Date.now();
  const v1 = join(xdg, 'mcc', 'sessions.json');
  writeFileSync(
    v1,
    JSON.stringify({
      version: 1,
      buckets: {
        [bucketIdOf('carol', 'resume-me')]: { user: 'carol', sessionKey: 'resume-me', vars: { target: '10.0.0.5', budget: 1000, hosts: ['a'] }, createdAt: now - 5000, lastUsed: now - 1000 },
        [bucketIdOf('carol', 'other')]: { user: 'carol', sessionKey: 'other', vars: { x: true }, createdAt: now - 5000, lastUsed: now - 1000 },
      },
    }),
  );
  // No --store, no --state: the defaults under $XDG_STATE_HOME.
  const env = { ...ENV, XDG_STATE_HOME: xdg };
  const first = await startServe(['--tools', TOOLS, '--user', 'carol'], env);
  assert.match(first.stderr(), /Imported 2 session bucket\(s\) from the version 1 state file .*sessions\.json into SQLite .*sessions\.db/);
  const c = await connect(first, { sessionKey: 'resume-me' });
  assert.equal(await okText(c, 'get_session', { name: 'target' }), '"10.0.0.5"');
  assert.equal(await okText(c, 'get_session', { name: 'budget' }), '1000');
  const shown = await okText(c, 'execute', { key: 'test.ctx_echo' });
  assert.match(shown, /target=10\.0\.0\.5\nbudget=1000/);
  await okText(c, 'set_session', { name: 'budget', value: 2000 });
  await c.close();
  assert.equal(await first.stop(), 0);

  const files = readdirSync(join(xdg, 'mcc'));
  assert.equal(existsSync(v1), false);
  assert.ok(files.some((f) => /^sessions\.json\.imported-/.test(f)), files.join(', '));
  assert.ok(files.includes('sessions.db'));

  // The second start imports nothing: the change made since the import stands.
  const second = await startServe(['--tools', TOOLS, '--user', 'carol'], env);
  assert.doesNotMatch(second.stderr(), /Imported/);
  const c2 = await connect(second, { sessionKey: 'resume-me' });
  assert.equal(await okText(c2, 'get_session', { name: 'budget' }), '2000');
  const other = await connect(second, { sessionKey: 'other' });
  assert.equal(await okText(other, 'get_session', { name: 'x' }), 'true');
  await Promise.all([c2.close(), other.close()]);
  assert.equal(await second.stop(), 0);
});

test('bad --store values are usage errors that name the forms', async () => {
  for (const [spec, why] of [['postgres://x', /not a store; use sqlite:PATH, redis:\/\/HOST:PORT\/DB/], ['sqlite:', /needs a file path/], ['redis://h:1/x', /database after the host must be a number/]] as const) {
    await assert.rejects(startServe(['--tools', TOOLS, '--store', spec]), why);
  }
  await assert.rejects(startServe(['--tools', TOOLS, '--store-prefix', 'x:']), /--store-prefix is for a Redis store/);
  await assert.rejects(startServe(['--tools', TOOLS, '--stateless', '--stdio']), /--stateless is for HTTP/);
  const r = await startServe(['--tools', TOOLS, '--store', 'memory:']);
  const c = await connect(r, { sessionKey: 'm' });
  assert.equal(text(await call(c, 'set_session', { name: 'a', value: 1 })), "Set 'a'.");
  await c.close();
  assert.equal(await r.stop(), 0);
  assert.match(r.stderr(), /sessions in memory/);
});
