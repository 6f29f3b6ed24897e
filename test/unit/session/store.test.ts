// What the SessionStore itself adds over any backend (the backends share
// store-contract.ts): how many writes each call costs, the last-use queue,
// failures, events, the sweeper, exclusive() and option checks.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreChange } from '../../../src/core/session/types';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { SessionError, SessionStore, bucketIdOf, type SessionStoreOptions } from '../../../src/core/session/store';
import { FakeClock, InstrumentedStorage, RecordingLogger } from './helpers';

async function openStore(opts: Partial<SessionStoreOptions> & { delayMs?: number } = {}) {
  const storage = new InstrumentedStorage(new MemoryStorage(), opts.delayMs ?? 0);
  const clock = (opts.clock as FakeClock | undefined) ?? new FakeClock();
  const logger = new RecordingLogger();
  const store = await SessionStore.open({ sweepIntervalMs: 0, touchIntervalMs: 0, logger, ...opts, storage, clock });
  return { store, storage, clock, logger };
}

void describe('SessionStore writes', () => {
  void test('set is one write carrying the last use; reads and touches write nothing until flushed', async () => {
    const { store, storage } = await openStore();
    await store.set('u', 's', 'a', 1, 'client');
    assert.equal(storage.changes, 1);
    for (let i = 0; i < 10; i++) {
      store.touch('u', 's', 'client');
      await store.variables('u', 's');
      await store.list();
    }
    assert.equal(storage.changes, 1);
    assert.equal(storage.touchBatches.length, 0);
    await store.flush();
    assert.deepEqual(storage.touchBatches.map((b) => b.length), [1], 'ten touches of one bucket: one refresh');
    await store.flush();
    assert.equal(storage.touchBatches.length, 1, 'nothing queued: nothing written');
  });

  void test('queued touches are written on the interval, one batch for every bucket', async () => {
    const { store, storage } = await openStore({ touchIntervalMs: 30 });
    for (const k of ['a', 'b', 'c']) store.touch('u', k);
    store.touch('u', 'a');
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(storage.touchBatches.length, 1);
    assert.deepEqual(storage.touchBatches[0]?.map((t) => t.sessionKey).sort(), ['a', 'b', 'c']);
    store.dispose();
  });

  void test('the default interval is a minute, or a tenth of a short TTL', async () => {
    const { store, storage } = await openStore({ touchIntervalMs: undefined, ttlSeconds: 1 });
    store.touch('u', 's');
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(storage.touchBatches.length, 1);
    store.dispose();
    const long = await openStore({ touchIntervalMs: undefined });
    long.store.touch('u', 's');
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(long.storage.touchBatches.length, 0);
    long.store.dispose();
  });

  void test('a write-back that changes nothing writes nothing', async () => {
    const { store, storage } = await openStore();
    await store.set('u', 's', 'a', 1);
    const wb = await store.writeBack('u', 's', { a: 1, user: 'u' }, { a: 1, user: 'u' });
    assert.deepEqual(wb, { applied: true, changed: [], strippedReserved: [] });
    assert.equal(storage.changes, 1);
  });

  void test('a failed write rejects with a SessionError, is logged, and the store keeps working', async () => {
    const { store, storage, logger } = await openStore();
    storage.failNext = 1;
    await assert.rejects(store.set('u', 's', 'a', 1), (e: unknown) => e instanceof SessionError && /disk full.*Nothing was stored/.test(e.message));
    assert.ok(logger.lines.some((l) => l.level === 'error' && /disk full/.test(l.message)));
    assert.deepEqual(await store.variables('u', 's'), {});
    await store.set('u', 's', 'b', 2);
    assert.deepEqual(await store.variables('u', 's'), { b: 2 });
  });

  void test('a failed last-use write is kept for the next flush', async () => {
    const { store, storage } = await openStore();
    store.touch('u', 's', 'c');
    storage.failNext = 1;
    await store.flush();
    assert.equal(await storage.get(bucketIdOf('u', 's')), undefined);
    await store.flush();
    assert.equal((await storage.get(bucketIdOf('u', 's')))?.clientName, 'c');
  });

  void test('flush waits for every pending write', async () => {
    const { store, storage } = await openStore({ delayMs: 20 });
    void store.set('u', 's', 'a', 1);
    void store.set('u', 't', 'a', 2);
    store.touch('u', 'r');
    await store.flush();
    assert.equal((await storage.list()).length, 3);
  });
});

void describe('SessionStore exclusive()', () => {
  void test('one at a time per bucket, in order; other buckets are not held up', async () => {
    const { store } = await openStore();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = store.exclusive('u', 's', async () => {
      log.push('first in');
      await gate;
      log.push('first out');
    });
    const second = store.exclusive('u', 's', () => Promise.resolve(log.push('second')));
    await store.exclusive('u', 'other', () => Promise.resolve(log.push('other bucket')));
    assert.deepEqual(log, ['first in', 'other bucket']);
    release();
    await Promise.all([first, second]);
    assert.deepEqual(log, ['first in', 'other bucket', 'first out', 'second']);
    // A failing call releases the bucket for the next one.
    await assert.rejects(store.exclusive('u', 's', () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await store.exclusive('u', 's', () => Promise.resolve(7)), 7);
  });
});

void describe('SessionStore views and events', () => {
  void test('views carry owner, times and expiry; list is most recently used first', async () => {
    const { store, clock } = await openStore({ ttlSeconds: 100 });
    await store.set('u', 'old', 'a', 1, 'copilot');
    clock.advance(10);
    await store.set('u', 'new', 'a', 1);
    const id = bucketIdOf('u', 'old');
    assert.deepEqual(await store.bucket(id), {
      id, user: 'u', sessionKey: 'old', clientName: 'copilot', createdAt: clock.t - 10, lastUsed: clock.t - 10, expiresAt: clock.t - 10 + 100_000, vars: { a: 1 },
    });
    assert.deepEqual((await store.list()).map((b) => b.sessionKey), ['new', 'old']);
  });

  void test('one event per change, with its reason and owner', async () => {
    const { store, clock } = await openStore({ ttlSeconds: 10 });
    const events: StoreChange[] = [];
    store.onDidChange((e) => events.push(e));
    const id = bucketIdOf('u', 's');
    store.touch('u', 's', 'client');
    await store.set('u', 's', 'a', 1);
    await store.delete('u', 's', 'a');
    await store.delete('u', 's', 'missing'); // only its last use changes
    await store.writeBack('u', 's', {}, { b: 2 });
    await store.writeBack('u', 's', { b: 2 }, { b: 2 }); // no change: a touch
    await store.writeBack('u', 's', {}, { Bad: 1 }); // rejected: no event
    await store.writeBack('u', 's', {}, { b: 3 }); // conflict: no event
    await assert.rejects(store.set('u', 's', 'Bad', 1)); // refused: no event
    await store.clear('u', 's');
    await store.set('u', 's', 'c', 1);
    clock.advance(10_000);
    await store.sweep();
    assert.deepEqual(
      events.map((e) => e.reason),
      ['touch', 'set', 'delete', 'touch', 'write-back', 'touch', 'clear', 'set', 'expired'],
    );
    assert.ok(events.every((e) => e.bucketId === id));
    assert.ok(events.filter((e) => e.reason !== 'expired').every((e) => e.user === 'u' && e.sessionKey === 's'));
  });

  void test('a throwing listener breaks nothing', async () => {
    const { store } = await openStore();
    store.onDidChange(() => {
      throw new Error('listener bug');
    });
    await store.set('u', 's', 'a', 2);
    assert.deepEqual(await store.variables('u', 's'), { a: 2 });
  });
});

void describe('SessionStore TTL and options', () => {
  void test('open removes buckets that expired while no store was open', async () => {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const first = await SessionStore.open({ storage, clock, ttlSeconds: 10, sweepIntervalMs: 0 });
    await first.set('u', 'a', 'v', 1);
    clock.advance(8_000);
    await first.set('u', 'b', 'v', 2);
    first.dispose();
    clock.advance(5_000);
    const second = await SessionStore.open({ storage, clock, ttlSeconds: 10, sweepIntervalMs: 0 });
    assert.deepEqual((await storage.list()).map(([id]) => id), [bucketIdOf('u', 'b')]);
    second.dispose();
  });

  void test('a bucket in use is not swept for a stale stored last use', async () => {
    const { store, clock } = await openStore({ ttlSeconds: 10 });
    await store.set('u', 's', 'a', 1);
    clock.advance(9_000);
    store.touch('u', 's'); // queued, not yet written
    clock.advance(2_000);
    assert.equal(await store.sweep(), 0);
    assert.deepEqual(await store.variables('u', 's'), { a: 1 });
  });

  void test('the periodic sweeper runs on its interval and stops on dispose', async () => {
    const clock = new FakeClock();
    const { store, storage } = await openStore({ clock, ttlSeconds: 1, sweepIntervalMs: 20 });
    await store.set('u', 's', 'a', 1);
    clock.advance(1_000);
    const swept = new Promise<StoreChange>((resolve) => store.onDidChange(resolve));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 5_000)));
    const event = await Promise.race([swept, timeout]);
    clearTimeout(timer);
    assert.deepEqual(event, { bucketId: bucketIdOf('u', 's'), reason: 'expired' });
    store.dispose();
    await store.set('u', 's', 'b', 1);
    clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await storage.list()).length, 1, 'no sweep after dispose');
  });

  void test('bad options are refused at open', async () => {
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), ttlSeconds: 0 }), /ttlSeconds must be a positive number/);
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), limits: { maxValueBytes: -1 } }), /maxValueBytes/);
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), sweepIntervalMs: NaN }), /sweepIntervalMs/);
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), touchIntervalMs: -1 }), /touchIntervalMs/);
  });
});
