import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BUCKET_KEY_PREFIX, MementoStorage } from '../../../src/extension/memento-storage';
import { SessionStore, bucketIdOf } from '../../../src/core/session/store';
import { storeContract } from '../session/store-contract';
import { RecordingLogger } from '../session/helpers';
import { FakeClock, FakeMemento } from './fakes';

storeContract({ name: 'workspace state (Memento)', make: () => Promise.resolve(new MementoStorage(new FakeMemento())) });

const rec = (user: string, sessionKey: string, vars: Record<string, unknown>, lastUsed: number) => ({ user, sessionKey, vars, createdAt: lastUsed - 1, lastUsed });

void describe('MementoStorage', () => {
  void test('one Memento key per bucket, holding the version 1 record; a set writes that key only', async () => {
    const m = new FakeMemento();
    m.data.set('mcc.sessionKey', 'vscode-abc');
    const clock = new FakeClock();
    const store = await SessionStore.open({ storage: new MementoStorage(m), clock, sweepIntervalMs: 0 });
    await store.set('alice', 'k1', 'a', 1);
    await store.set('bob', 'k2', 'b', [1, 'x']);
    // Acknowledged means written: nothing is still in flight.
    assert.equal(m.inFlight, 0);
    const before = m.updates;
    await store.set('bob', 'k2', 'c', true);
    assert.equal(m.updates - before, 1);
    assert.deepEqual([...m.data.keys()].sort(), ['mcc.sessionKey', BUCKET_KEY_PREFIX + bucketIdOf('alice', 'k1'), BUCKET_KEY_PREFIX + bucketIdOf('bob', 'k2')].sort());
    assert.deepEqual(m.data.get(BUCKET_KEY_PREFIX + bucketIdOf('bob', 'k2')), { user: 'bob', sessionKey: 'k2', vars: { b: [1, 'x'], c: true }, createdAt: clock.t, lastUsed: clock.t });
    store.dispose();
  });

  void test('workspace state written by version 1 reads unchanged', async () => {
    const m = new FakeMemento();
    const clock = new FakeClock();
    m.data.set(BUCKET_KEY_PREFIX + bucketIdOf('alice', 'k'), { ...rec('alice', 'k', { target: '10.0.0.5', budget: 1000 }, clock.t - 10), clientName: 'Visual Studio Code' });
    const store = await SessionStore.open({ storage: new MementoStorage(m), clock, sweepIntervalMs: 0 });
    assert.deepEqual(await store.variables('alice', 'k'), { target: '10.0.0.5', budget: 1000 });
    assert.equal((await store.bucket(bucketIdOf('alice', 'k')))?.clientName, 'Visual Studio Code');
    store.dispose();
  });

  void test('at open, expired and unusable records go, a misfiled one moves home, each with a warning', async () => {
    const m = new FakeMemento();
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    m.data.set(BUCKET_KEY_PREFIX + bucketIdOf('u', 'ok'), rec('u', 'ok', { a: 1, Bad: 2, user: 'spoof' }, clock.t));
    m.data.set(BUCKET_KEY_PREFIX + 'junk', { user: 5 });
    m.data.set(BUCKET_KEY_PREFIX + 'misfiled', rec('u', 'moved', { m: 1 }, clock.t));
    m.data.set(BUCKET_KEY_PREFIX + bucketIdOf('u', 'old'), rec('u', 'old', { o: 1 }, clock.t - 100_000));
    const store = await SessionStore.open({ storage: new MementoStorage(m, logger), clock, ttlSeconds: 60, sweepIntervalMs: 0 });
    assert.deepEqual(await store.variables('u', 'ok'), { a: 1 });
    assert.deepEqual(await store.variables('u', 'moved'), { m: 1 });
    assert.deepEqual((await store.list()).map((b) => b.sessionKey).sort(), ['moved', 'ok']);
    assert.deepEqual([...m.data.keys()].sort(), [BUCKET_KEY_PREFIX + bucketIdOf('u', 'moved'), BUCKET_KEY_PREFIX + bucketIdOf('u', 'ok')].sort());
    const warnings = logger.warnings().join('\n');
    assert.match(warnings, /Skipping stored session bucket "junk": "user" is not a non-empty string/);
    assert.match(warnings, /Dropping variable "Bad"/);
    assert.match(warnings, /Dropping variable "user".*reserved/);
    assert.match(warnings, /"misfiled" belongs under/);
    store.dispose();
  });
});
