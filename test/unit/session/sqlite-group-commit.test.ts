// Group commit in the SQLite store: writes that arrive while a commit runs
// share the next one, each caller is answered only once the commit holding
// its write is done, and a transaction that fails fails every write in it
// (each with the reason) while every write acknowledged before stays.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStorage } from '../../../src/core/session/sqlite-storage';
import { SqliteWrites, type WriteOp } from '../../../src/core/session/sqlite-writes';
import { openDatabase } from '../../../src/core/session/sqlite-schema';
import { readBucket, statements } from '../../../src/core/session/sqlite-rows';
import { SessionStore } from '../../../src/core/session/store';
import type { BucketChange } from '../../../src/core/session/types';

const dir = mkdtempSync(join(tmpdir(), 'mcc-sqlite-group-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function setOp(user: string, key: string, name: string, json: string): WriteOp {
  const change: BucketChange = {
    user,
    sessionKey: key,
    now: Date.now(),
    ttlMs: 60_000,
    set: new Map([[name, json]]),
    remove: [],
    expect: new Map(),
    create: true,
    maxBucketBytes: 1 << 20,
  };
  return { op: 'change', id: `${user}:${key}`, change };
}

void describe('SQLite group commit', () => {
  void test('200 sets at once take far fewer commits, and each is readable by another connection when its caller is answered', async () => {
    const path = join(dir, 'group.db');
    const lines: string[] = [];
    const logger = { info: (m: string) => void lines.push(m), warn: () => undefined, error: () => undefined, debug: () => undefined };
    const store = await SessionStore.open({ storage: new SqliteStorage(path, logger), sweepIntervalMs: 0, touchIntervalMs: 0 });
    const reader = new SqliteStorage(path);
    const unseen: string[] = [];
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        await store.set('u', `k${i % 8}`, `v${i}`, i);
        // Answered: the commit is done, so any other connection reads it.
        const b = await reader.get(`u:k${i % 8}`);
        if (b?.vars.get(`v${i}`) !== String(i)) unseen.push(`v${i}`);
      }),
    );
    assert.deepEqual(unseen, []);
    await store.close();
    await reader.close();
    const m = /: (\d+) changes in (\d+) commits/.exec(lines.join('\n'));
    assert.ok(m, `the close logs the commit count: ${lines.join(' | ')}`);
    const [changes, commits] = [Number(m[1]), Number(m[2])];
    assert.ok(changes >= 200, `${changes} changes`);
    assert.ok(commits * 4 <= changes, `${changes} changes took ${commits} commits`);
  });

  void test('a transaction that cannot commit fails every write in it with the reason; what was acknowledged before stays', () => {
    const path = join(dir, 'failing.db');
    openDatabase(path).close();
    // The writer's connection, waiting at most 50 ms for the write lock.
    const db = new Database(path, { timeout: 50 });
    const writes = new SqliteWrites(db);
    const first = writes.commit([setOp('u', 'k', 'kept', '1')]);
    assert.deepEqual(first, [{ ok: true, value: { ok: true, removed: [], written: true } }]);

    // Another process holds the write lock: the whole batch fails, each write with the reason.
    const other = new Database(path);
    other.prepare('BEGIN IMMEDIATE').run();
    const failed = writes.commit([setOp('u', 'k', 'a', '2'), setOp('u', 'k2', 'b', '3'), setOp('v', 'k', 'c', '4')]);
    other.prepare('ROLLBACK').run();
    other.close();
    assert.equal(failed.length, 3);
    for (const r of failed) assert.deepEqual(r, { ok: false, error: 'database is locked' });

    const q = statements(db);
    assert.deepEqual(Object.fromEntries(readBucket(q, 'u:k')?.vars ?? []), { kept: '1' }, 'nothing of the failed batch, the acknowledged write kept');
    assert.equal(readBucket(q, 'u:k2'), undefined);
    // The writer goes on: the next batch commits.
    assert.equal(writes.commit([setOp('u', 'k', 'a', '2')])[0]?.ok, true);
    assert.deepEqual(Object.fromEntries(readBucket(q, 'u:k')?.vars ?? []), { kept: '1', a: '2' });
    db.close();
  });
});
