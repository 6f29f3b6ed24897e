import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BUCKET_KEY_PREFIX, MementoStorage } from '../../../src/extension/memento-storage';
import { SessionStore, bucketIdOf } from '../../../src/core/session/store';
import { FakeClock, FakeMemento } from './fakes';

const rec = (user: string, sessionKey: string, vars: Record<string, unknown> = {}) => ({ user, sessionKey, vars, createdAt: 1, lastUsed: 2 });

void describe('MementoStorage', () => {
  void test('one Memento key per bucket, under the prefix, and put resolves only once written', async () => {
    const m = new FakeMemento();
    const s = new MementoStorage(m);
    await s.put('alice:k1', rec('alice', 'k1', { a: 1 }));
    await s.put('bob:k2', rec('bob', 'k2'));
    assert.deepEqual([...m.data.keys()].sort(), [`${BUCKET_KEY_PREFIX}alice:k1`, `${BUCKET_KEY_PREFIX}bob:k2`]);
    assert.equal(m.inFlight, 0);
  });

  void test('loadAll enumerates with keys(), ignores other keys, and copies records', async () => {
    const m = new FakeMemento();
    m.data.set('mcc.sessionKey', 'vscode-abc');
    m.data.set('other.thing', { x: 1 });
    const s = new MementoStorage(m);
    await s.put('alice:k1', rec('alice', 'k1', { list: [1, 2] }));
    const all = await s.loadAll();
    assert.deepEqual([...all.keys()], ['alice:k1']);
    const r = all.get('alice:k1')!;
    (r.vars.list as number[]).push(3);
    assert.deepEqual((await s.loadAll()).get('alice:k1')!.vars, { list: [1, 2] });
  });

  void test('delete removes the key; a write costs one key, not the store', async () => {
    const m = new FakeMemento();
    const s = new MementoStorage(m);
    await s.put('a:1', rec('a', '1'));
    await s.put('b:1', rec('b', '1'));
    const before = m.updates;
    await s.delete('a:1');
    assert.equal(m.updates - before, 1);
    assert.deepEqual([...m.data.keys()], [`${BUCKET_KEY_PREFIX}b:1`]);
  });

  void test('flush waits for writes that were not awaited', async () => {
    const m = new FakeMemento();
    const s = new MementoStorage(m);
    void s.put('a:1', rec('a', '1'));
    void s.put('b:1', rec('b', '1'));
    assert.ok(m.inFlight > 0);
    await s.flush();
    assert.equal(m.inFlight, 0);
    assert.equal(m.data.size, 2);
  });

  void test('the core store round-trips typed values through workspace state', async () => {
    const m = new FakeMemento();
    const clock = new FakeClock();
    const store = await SessionStore.open({ storage: new MementoStorage(m), clock, sweepIntervalMs: 0 });
    await store.set('alice', 'k', 'target', '10.0.0.5');
    await store.set('alice', 'k', 'budget', 1000);
    await store.set('alice', 'k', 'hosts', ['a', 'b']);
    // Acknowledged means durable: nothing is still in flight.
    assert.equal(m.inFlight, 0);
    store.dispose();
    const again = await SessionStore.open({ storage: new MementoStorage(m), clock, sweepIntervalMs: 0 });
    assert.deepEqual(again.variables('alice', 'k'), { target: '10.0.0.5', budget: 1000, hosts: ['a', 'b'] });
    assert.ok(m.data.has(BUCKET_KEY_PREFIX + bucketIdOf('alice', 'k')));
    again.dispose();
  });

  void test('expired buckets are removed at open and by a sweep, and never listed', async () => {
    const m = new FakeMemento();
    const clock = new FakeClock();
    const store = await SessionStore.open({ storage: new MementoStorage(m), clock, ttlSeconds: 60, sweepIntervalMs: 0 });
    await store.set('alice', 'old', 'x', 1);
    clock.advance(30_000);
    await store.set('alice', 'new', 'y', 2);
    clock.advance(40_000);
    assert.deepEqual(store.list().map((b) => b.sessionKey), ['new']);
    assert.equal(await store.sweep(), 1);
    await store.flush();
    assert.deepEqual([...m.data.keys()], [BUCKET_KEY_PREFIX + bucketIdOf('alice', 'new')]);
    store.dispose();
    clock.advance(60_000);
    const reopened = await SessionStore.open({ storage: new MementoStorage(m), clock, ttlSeconds: 60, sweepIntervalMs: 0 });
    assert.deepEqual(reopened.list(), []);
    await reopened.flush();
    assert.equal(m.data.size, 0);
    reopened.dispose();
  });
});
