// The SQLite file's layout: a small set writes one page (one WAL frame),
// however many buckets and variables the file holds, and a file of the
// version 1 layout (two tables) is upgraded on open with nothing lost.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStorage } from '../../../src/core/session/sqlite-storage';
import { SessionStore } from '../../../src/core/session/store';

const dir = mkdtempSync(join(tmpdir(), 'mcc-sqlite-layout-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** WAL frame = 24-byte header + one page (2 KiB in a new file). */
const FRAME = 24 + 2048;

void describe('SQLite layout', () => {
  void test('a set of a small value on a live bucket appends exactly one WAL frame, with 1 or 300 buckets and 1 or 100 variables', async () => {
    const path = join(dir, 'frames.db');
    const storage = new SqliteStorage(path);
    const db = new Database(path, { readonly: true });
    assert.equal(db.pragma('page_size', { simple: true }), 2048);
    db.close();
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0, touchIntervalMs: 0 });
    const framesPerSet = async (user: string, key: string): Promise<number[]> => {
      await store.set(user, key, 'probe', 0, 'client');
      const out: number[] = [];
      for (let i = 1; i <= 5; i++) {
        const before = statSync(`${path}-wal`).size;
        await store.set(user, key, 'probe', i, 'client');
        out.push((statSync(`${path}-wal`).size - before) / FRAME);
      }
      return out;
    };
    assert.deepEqual(await framesPerSet('u', 'first'), [1, 1, 1, 1, 1]);
    for (let b = 0; b < 300; b++) await store.set('u', `filler-${b}`, 'x', b, 'client');
    for (let v = 0; v < 100; v++) await store.set('u', 'wide', `v${v}`, { v, note: 'a small value' }, 'client');
    assert.deepEqual(await framesPerSet('u', 'first'), [1, 1, 1, 1, 1]);
    assert.deepEqual(await framesPerSet('u', 'wide'), [1, 1, 1, 1, 1]);
    // The bucket's last use still moves with each set.
    const before = (await store.bucket('u:first'))?.lastUsed ?? 0;
    await new Promise((r) => setTimeout(r, 5));
    await store.set('u', 'first', 'probe', 'later', 'client');
    assert.ok(((await store.bucket('u:first'))?.lastUsed ?? 0) > before);
    await store.close();
  });

  void test('a version 1 file (buckets and vars tables) is upgraded on open: every bucket, variable and time kept', async () => {
    const path = join(dir, 'v1.db');
    const now = Date.now();
    const v1 = new Database(path);
    v1.pragma('journal_mode = WAL');
    v1.exec(`
      CREATE TABLE buckets (id TEXT PRIMARY KEY, user TEXT NOT NULL, session_key TEXT NOT NULL, created_at INTEGER NOT NULL,
        last_used INTEGER NOT NULL, client_name TEXT) WITHOUT ROWID;
      CREATE TABLE vars (bucket_id TEXT NOT NULL, name TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (bucket_id, name)) WITHOUT ROWID;
    `);
    v1.prepare('INSERT INTO buckets VALUES (?, ?, ?, ?, ?, ?)').run('alice:k1', 'alice', 'k1', now - 5000, now - 1000, 'editor');
    v1.prepare('INSERT INTO buckets VALUES (?, ?, ?, ?, ?, ?)').run('bob:k2', 'bob', 'k2', now - 3000, now - 2000, null);
    v1.prepare('INSERT INTO vars VALUES (?, ?, ?)').run('alice:k1', 'target', '"10.0.0.5"');
    v1.prepare('INSERT INTO vars VALUES (?, ?, ?)').run('alice:k1', 'budget', '1000');
    v1.pragma('user_version = 1');
    v1.close();

    const storage = new SqliteStorage(path);
    const all = new Map(await storage.list());
    assert.deepEqual([...all.keys()].sort(), ['alice:k1', 'bob:k2']);
    const alice = all.get('alice:k1');
    assert.deepEqual(
      { ...alice, vars: Object.fromEntries(alice?.vars ?? []) },
      { user: 'alice', sessionKey: 'k1', createdAt: now - 5000, lastUsed: now - 1000, clientName: 'editor', vars: { target: '"10.0.0.5"', budget: '1000' } },
    );
    const bob = all.get('bob:k2');
    assert.deepEqual({ ...bob, vars: [...(bob?.vars ?? [])] }, { user: 'bob', sessionKey: 'k2', createdAt: now - 3000, lastUsed: now - 2000, vars: [] });
    await storage.close();
    const db = new Database(path, { readonly: true });
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    const version = db.pragma('user_version', { simple: true });
    db.close();
    assert.deepEqual(tables, ['entries']);
    assert.equal(version, 2);
  });
});
