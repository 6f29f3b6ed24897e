import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { SessionError, SessionStore, bucketIdOf } from '../../../src/core/session/store';
import { InstrumentedStorage, RecordingLogger } from './helpers';

void describe('SessionStore concurrency and durability', () => {
  void test('N concurrent set() calls on one bucket all survive; writes are coalesced, one in flight', async () => {
    const storage = new InstrumentedStorage(new MemoryStorage(), 5);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.set('u', 's', `v${i}`, i)));
    const stored = (await storage.loadAll()).get(bucketIdOf('u', 's'))!;
    assert.equal(Object.keys(stored.vars).length, 200);
    for (let i = 0; i < 200; i++) assert.equal(stored.vars[`v${i}`], i);
    assert.equal(storage.maxInFlight, 1, 'one storage call per bucket at a time');
    assert.ok(storage.puts <= 3, `coalesced into few puts, got ${storage.puts}`);
  });

  void test('each call resolves only after a put carrying its change resolved', async () => {
    const storage = new InstrumentedStorage(new MemoryStorage(), 20);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    const first = store.set('u', 's', 'a', 1);
    const second = store.set('u', 's', 'b', 2); // queued behind the first put
    await first;
    assert.deepEqual((await storage.loadAll()).get(bucketIdOf('u', 's'))?.vars, { a: 1 });
    await second;
    assert.deepEqual((await storage.loadAll()).get(bucketIdOf('u', 's'))?.vars, { a: 1, b: 2 });
  });

  void test('different buckets persist in parallel', async () => {
    const storage = new InstrumentedStorage(new MemoryStorage(), 30);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    await Promise.all([store.set('u', 'a', 'x', 1), store.set('u', 'b', 'x', 1), store.set('v', 'a', 'x', 1)]);
    assert.equal(storage.maxInFlight, 3);
  });

  void test('a set after a clear is ordered after the delete', async () => {
    const storage = new InstrumentedStorage(new MemoryStorage(), 5);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    await store.set('u', 's', 'a', 1);
    await Promise.all([store.clear('u', 's'), store.set('u', 's', 'b', 2)]);
    assert.deepEqual((await storage.loadAll()).get(bucketIdOf('u', 's'))?.vars, { b: 2 });
  });

  void test('a failed storage write rejects the call with a SessionError and is logged', async () => {
    const logger = new RecordingLogger();
    const storage = new InstrumentedStorage(new MemoryStorage(), 0);
    const store = await SessionStore.open({ storage, logger, sweepIntervalMs: 0 });
    storage.failNext = 1;
    await assert.rejects(store.set('u', 's', 'a', 1), (e: unknown) => e instanceof SessionError && /disk full/.test(e.message));
    assert.ok(logger.lines.some((l) => l.level === 'error' && /disk full/.test(l.message)));
    // Nothing of the refused call stays behind, in memory or on disk.
    assert.deepEqual(store.variables('u', 's'), {});
    // The store keeps working afterwards.
    await store.set('u', 's', 'b', 2);
    assert.deepEqual((await storage.loadAll()).get(bucketIdOf('u', 's'))?.vars, { b: 2 });
  });

  void test('a failed write rolls the bucket back to its saved state, refusing the changes queued on it', async () => {
    const storage = new InstrumentedStorage(new MemoryStorage(), 20);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    await store.set('u', 's', 'kept', 'yes');
    storage.failNext = 1;
    const first = store.set('u', 's', 'lost', 1);
    // Queued while the failing write is in flight: built on the lost change.
    await new Promise((r) => setTimeout(r, 5));
    const second = store.set('u', 's', 'also_lost', 2);
    await assert.rejects(first, SessionError);
    await assert.rejects(second, SessionError);
    assert.deepEqual(store.variables('u', 's'), { kept: 'yes' });
    assert.deepEqual((await storage.loadAll()).get(bucketIdOf('u', 's'))?.vars, { kept: 'yes' });
  });

  void test('flush waits for every pending write', async () => {
    const storage = new InstrumentedStorage(new MemoryStorage(), 20);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    void store.set('u', 's', 'a', 1);
    void store.set('u', 't', 'a', 2);
    await store.flush();
    const all = await storage.loadAll();
    assert.equal(all.size, 2);
  });

  void test('reopening from the same storage restores every acknowledged variable', async () => {
    const storage = new MemoryStorage();
    const first = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    await first.touch('alice', 'k', 'client-x');
    await Promise.all([first.set('alice', 'k', 'a', [1, { b: null }]), first.set('bob', 'k', 'a', 'two')]);
    first.dispose();
    const second = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    assert.deepEqual(second.variables('alice', 'k'), { a: [1, { b: null }] });
    assert.deepEqual(second.variables('bob', 'k'), { a: 'two' });
    assert.equal(second.bucket(bucketIdOf('alice', 'k'))?.clientName, 'client-x');
  });

  void test('unusable stored records are skipped or cleaned with warnings, never a crash', async () => {
    const logger = new RecordingLogger();
    const now = Date.now();
    const good = { user: 'u', sessionKey: 'ok', vars: { a: 1, Bad: 2, user: 'spoof' }, createdAt: now, lastUsed: now };
    const storage = new MemoryStorage([
      [bucketIdOf('u', 'ok'), good],
      ['junk', { user: 5 } as never],
      ['misfiled', { ...good, sessionKey: 'moved' }],
    ]);
    const store = await SessionStore.open({ storage, logger, sweepIntervalMs: 0 });
    assert.deepEqual(store.variables('u', 'ok'), { a: 1 });
    assert.deepEqual(store.variables('u', 'moved'), { a: 1 });
    const warnings = logger.warnings().join('\n');
    assert.match(warnings, /Skipping stored session bucket "junk": "user" is not a non-empty string/);
    assert.match(warnings, /Dropping variable "Bad"/);
    assert.match(warnings, /Dropping variable "user".*reserved/);
    assert.match(warnings, /"misfiled" belongs under/);
    const keys = [...(await storage.loadAll()).keys()].sort();
    assert.deepEqual(keys, [bucketIdOf('u', 'moved'), bucketIdOf('u', 'ok'), 'junk'].sort());
  });
});
