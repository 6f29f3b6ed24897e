// Upgrading from version 1: its JSON state file moves into the store whole,
// once, and stays as a backup.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bucketIdOf } from '../../../src/core/session/bucket-id';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { SqliteStorage } from '../../../src/core/session/sqlite-storage';
import { SessionStore } from '../../../src/core/session/store';
import { importV1StateFile } from '../../../src/core/session/v1-import';
import { FakeClock, RecordingLogger } from './helpers';

const root = mkdtempSync(join(tmpdir(), 'mcc-v1-'));
let n = 0;
const DAY = 86_400_000;

function v1File(buckets: Record<string, unknown>): string {
  const dir = join(root, String(++n));
  mkdirSync(dir);
  const path = join(dir, 'sessions.json');
  writeFileSync(path, JSON.stringify({ version: 1, buckets }, null, 1));
  return path;
}

void describe('importing a version 1 state file', () => {
  after(() => rmSync(root, { recursive: true, force: true }));
  const clock = new FakeClock();
  const now = clock.t;
  const rec = (user: string, sessionKey: string, vars: Record<string, unknown>, lastUsed = now - 1000, clientName?: string) => ({
    user, sessionKey, vars, createdAt: lastUsed - 5000, lastUsed, ...(clientName ? { clientName } : {}),
  });

  void test('every live bucket lands in a SQLite store with types, times and client; the file becomes a backup', async () => {
    const path = v1File({
      [bucketIdOf('alice', 'k1')]: rec('alice', 'k1', { target: '10.0.0.5', budget: 1000, hosts: ['a', 'b'], none: null }, now - 1000, 'copilot'),
      [bucketIdOf('bob', 'k2')]: rec('bob', 'k2', { n: 1 }),
      [bucketIdOf('old', 'k')]: rec('old', 'k', { gone: 1 }, now - 2 * DAY),
      misfiled: rec('carol', 'k3', { moved: true }),
      junk: { user: 5 },
    });
    const original = readFileSync(path, 'utf8');
    const storage = new SqliteStorage(join(root, String(n), 'sessions.db'));
    const logger = new RecordingLogger();
    const result = await importV1StateFile(path, storage, { ttlMs: DAY, now, logger });
    assert.equal(result?.imported, 3);
    assert.equal(result?.skipped, 2);
    assert.equal(existsSync(path), false);
    assert.match(result.backup, /sessions\.json\.imported-\d{8}T\d+Z$/);
    assert.equal(readFileSync(result.backup, 'utf8'), original, 'the backup is the file as it was');
    assert.match(logger.warnings().join('\n'), /Skipping stored session bucket "junk"/);

    const store = await SessionStore.open({ storage, clock, sweepIntervalMs: 0 });
    assert.deepEqual(await store.variables('alice', 'k1'), { target: '10.0.0.5', budget: 1000, hosts: ['a', 'b'], none: null });
    const view = await store.bucket(bucketIdOf('alice', 'k1'));
    assert.equal(view?.clientName, 'copilot');
    assert.equal(view?.lastUsed, now - 1000);
    assert.equal(view?.createdAt, now - 6000);
    assert.deepEqual(await store.variables('carol', 'k3'), { moved: true }, 'a misfiled bucket lands under its own id');
    assert.deepEqual(await store.variables('old', 'k'), {});
    // Imported once: there is nothing left to import.
    assert.equal(await importV1StateFile(path, storage, { ttlMs: DAY, now }), undefined);
    await store.close();
  });

  void test('a bucket the store already has is left as the store has it', async () => {
    const path = v1File({ [bucketIdOf('alice', 'k')]: rec('alice', 'k', { from_file: 1 }), [bucketIdOf('alice', 'new')]: rec('alice', 'new', { x: 1 }) });
    const storage = new MemoryStorage();
    const store = await SessionStore.open({ storage, clock, sweepIntervalMs: 0 });
    await store.set('alice', 'k', 'from_store', 2);
    const result = await importV1StateFile(path, storage, { ttlMs: DAY, now });
    assert.deepEqual([result?.imported, result?.skipped], [1, 1]);
    assert.deepEqual(await store.variables('alice', 'k'), { from_store: 2 });
    assert.deepEqual(await store.variables('alice', 'new'), { x: 1 });
    store.dispose();
  });

  void test('an unreadable file is moved aside, never imported, never overwritten', async () => {
    const dir = join(root, 'corrupt');
    mkdirSync(dir);
    const path = join(dir, 'sessions.json');
    const logger = new RecordingLogger();
    for (const text of ['{ not json', JSON.stringify({ version: 7, buckets: {} })]) {
      writeFileSync(path, text);
      const result = await importV1StateFile(path, new MemoryStorage(), { ttlMs: DAY, now, logger });
      assert.equal(result?.imported, 0);
    }
    const aside = readdirSync(dir).filter((f) => f.includes('.corrupt-'));
    assert.equal(aside.length, 2, `both copies kept: ${aside.join(', ')}`);
    assert.match(logger.warnings().join('\n'), /unreadable \(not valid JSON.*moved it to/);
    assert.match(logger.warnings().join('\n'), /unknown format version 7/);
  });

  void test('no file: nothing to do; a file that cannot be read is an error naming it', async () => {
    assert.equal(await importV1StateFile(join(root, 'absent.json'), new MemoryStorage(), { ttlMs: DAY, now }), undefined);
    const dirAsFile = join(root, 'is-a-dir.json');
    mkdirSync(dirAsFile);
    await assert.rejects(importV1StateFile(dirAsFile, new MemoryStorage(), { ttlMs: DAY, now }), /Cannot read the version 1 session state file .*is-a-dir\.json/);
  });
});
