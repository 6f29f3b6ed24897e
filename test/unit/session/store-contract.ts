// The contract every session storage backend meets, run through the real
// SessionStore: memory, workspace state (fake Memento), SQLite (a real file)
// and Redis (a real redis-server). Each backend's test file calls
// storeContract() with a factory of fresh, empty storages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionError, SessionStore, bucketIdOf, type SessionStoreOptions } from '../../../src/core/session/store';
import type { SessionStorage } from '../../../src/core/session/types';
import { FakeClock } from './helpers';

export interface ContractBackend {
  name: string;
  /** A fresh, empty storage; called once per test. */
  make(): Promise<SessionStorage>;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** Redis removes expired buckets itself: its sweep reports none. */
  expiresItself?: boolean;
  /** Set when the backend cannot run here (the suite is skipped, saying why). */
  skip?: () => string | undefined;
}

type Opts = Partial<Omit<SessionStoreOptions, 'storage' | 'clock'>>;

export function storeContract(b: ContractBackend): void {
  const skip = b.skip?.();
  void describe(`session store contract: ${b.name}`, { skip }, () => {
    const open: SessionStore[] = [];
    if (b.setup) before(() => b.setup?.());
    after(async () => {
      for (const s of open.splice(0)) await s.close();
      await b.teardown?.();
    });
    const fresh = async (opts: Opts = {}, storage?: SessionStorage) => {
      const clock = new FakeClock();
      const st = storage ?? (await b.make());
      const store = await SessionStore.open({ storage: st, clock, sweepIntervalMs: 0, touchIntervalMs: 0, ...opts });
      open.push(store);
      return { store, storage: st, clock };
    };

    void test('types are preserved, copies go in and out, unset is absent', async () => {
      const { store, storage, clock } = await fresh();
      const values: Record<string, unknown> = {
        target: '10.0.0.5', budget: 1000, ratio: -0.25, flag: false, list: ['a', 1, null, [true]],
        obj: { nested: { n: 1 }, s: '1' }, nothing: null, empty_string: '', numeric_string: '1000', text: 'é ✓ \u0000',
      };
      for (const [k, v] of Object.entries(values)) await store.set('alice', 's1', k, v);
      const got = await store.variables('alice', 's1');
      assert.deepEqual(got, values);
      assert.equal(typeof got.budget, 'number');
      assert.equal(typeof got.numeric_string, 'string');
      (got.list as unknown[]).push('mutated');
      assert.deepEqual((await store.variables('alice', 's1')).list, ['a', 1, null, [true]]);
      assert.equal(Object.hasOwn(got, 'never_set'), false);
      await store.set('alice', 's1', 'budget', '1000');
      assert.equal((await store.variables('alice', 's1')).budget, '1000');
      // A second store over the same backend reads it all (nothing lives in the store).
      const other = await SessionStore.open({ storage, clock, sweepIntervalMs: 0, touchIntervalMs: 0 });
      assert.deepEqual(await other.variables('alice', 's1'), { ...values, budget: '1000' });
      other.dispose();
    });

    void test('bad names and values are refused, storing nothing', async () => {
      const { store } = await fresh();
      for (const name of ['user', 'email', 'groups', 'tools']) {
        await assert.rejects(store.set('u', 's', name, 'x'), (e: unknown) => e instanceof SessionError && /reserved identity key/.test(e.message));
      }
      for (const name of ['Bad', '9lives', 'a-b', '', 'x y']) await assert.rejects(store.set('u', 's', name, 1), SessionError);
      await assert.rejects(store.set('u', 's', 'a', undefined), /value is undefined/);
      await assert.rejects(store.set('u', 's', 'a', { f: () => 1 }), /value\.f is a function/);
      await assert.rejects(store.set('', 's', 'a', 1), /Session user must be a non-empty string/);
      assert.throws(() => store.touch('u', ''), /Session key must be a non-empty string/);
      assert.deepEqual(await store.list(), []);
    });

    void test('a key named __proto__ is data: inside a value, as a variable name, through write-back and a second store', async () => {
      const { store, storage, clock } = await fresh();
      const text = '{"__proto__":{"x":1},"a":1}';
      await store.set('u', 's', 'v', JSON.parse(text));
      await store.set('u', 's', '__proto__', JSON.parse('{"__proto__":[1]}'));
      const snapshot = await store.variables('u', 's');
      // deepEqual compares own keys (and prototypes): a key lost, or turned into a prototype, fails it.
      assert.deepEqual(snapshot, JSON.parse(`{"v":${text},"__proto__":{"__proto__":[1]}}`));
      const wb = await store.writeBack('u', 's', snapshot, JSON.parse(`{"v":{"__proto__":{"x":2}},"__proto__":{"__proto__":[1]}}`) as Record<string, unknown>);
      assert.deepEqual(wb, { applied: true, changed: ['v'], strippedReserved: [] });
      const other = await SessionStore.open({ storage, clock, sweepIntervalMs: 0, touchIntervalMs: 0 });
      const expected: unknown = JSON.parse('{"v":{"__proto__":{"x":2}},"__proto__":{"__proto__":[1]}}');
      for (const vars of [await store.variables('u', 's'), await other.variables('u', 's'), (await other.list())[0]?.vars]) {
        assert.deepEqual(vars, expected);
      }
      other.dispose();
    });

    void test('limits: per value and per bucket, in UTF-8 bytes of JSON; a refused set keeps the old value', async () => {
      const { store } = await fresh({ limits: { maxValueBytes: 100, maxBucketBytes: 200 } });
      await store.set('u', 's', 'ok', 'x'.repeat(98));
      await assert.rejects(store.set('u', 's', 'big', 'x'.repeat(99)), /'big'.*101 bytes.*maxValueBytes.*100 bytes.*Nothing was stored/);
      await assert.rejects(store.set('u', 's', 'accents', 'é'.repeat(50)), /102 bytes/);
      const vars = { ok: 'x'.repeat(98), b: ['é', 1], c: { d: null } };
      await store.set('u', 's', 'b', vars.b);
      await store.set('u', 's', 'c', vars.c);
      const exact = Buffer.byteLength(JSON.stringify(vars));
      const room = 200 - exact - ',"e":""'.length;
      await store.set('u', 's', 'e', 'y'.repeat(room));
      await assert.rejects(store.set('u', 's', 'f', 1), /206 bytes.*maxBucketBytes.*200 bytes; 'f' was not stored/);
      await assert.rejects(store.set('u', 's', 'e', 'y'.repeat(room + 1)), /maxBucketBytes/);
      assert.deepEqual(await store.variables('u', 's'), { ...vars, e: 'y'.repeat(room) });
      await store.set('u', 'other', 'f', 1); // another bucket has its own room
    });

    void test('delete says whether it existed and never creates; clear removes the bucket', async () => {
      const { store } = await fresh();
      assert.equal(await store.delete('u', 's', 'a'), false);
      assert.deepEqual(await store.list(), []);
      await store.set('u', 's', 'a', 1);
      await store.set('u', 's', 'b', 2);
      assert.equal(await store.delete('u', 's', 'a'), true);
      assert.equal(await store.delete('u', 's', 'a'), false);
      assert.deepEqual(await store.variables('u', 's'), { b: 2 });
      await store.set('u', 'keep', 'x', 1);
      await store.clear('u', 's');
      assert.deepEqual(await store.variables('u', 's'), {});
      assert.equal(await store.bucket(bucketIdOf('u', 's')), undefined);
      assert.deepEqual((await store.list()).map((v) => v.sessionKey), ['keep']);
      await store.clear('nobody', 'x');
    });

    void test('isolation: per user and per session key, whatever characters they hold', async () => {
      const { store } = await fresh();
      const owners: Array<[string, string]> = [
        ['alice', 'tab1'], ['alice', 'tab2'], ['bob', 'tab1'], ['anonymous', 'k'],
        ['a:b', 'c'], ['a', 'b:c'], ['a%3a', 'b'], ['a', '%3ab'], ['a/b', '../c'], ['a*', '?b'],
      ];
      for (const [i, [u, k]] of owners.entries()) await store.set(u, k, 'who', i);
      for (const [i, [u, k]] of owners.entries()) assert.deepEqual(await store.variables(u, k), { who: i }, `${u} / ${k}`);
      assert.deepEqual(await store.variables('anonymous', 'tab1'), {});
      assert.equal((await store.list()).length, owners.length);
    });

    void test('TTL: an expired bucket is never served, a later write starts it afresh, every use extends it', async () => {
      const { store, clock } = await fresh({ ttlSeconds: 60 });
      await store.set('u', 's', 'a', 1);
      await store.set('u', 'kept', 'a', 1);
      for (let i = 0; i < 3; i++) {
        clock.advance(50_000);
        store.touch('u', 'kept');
        await store.flush();
      }
      clock.advance(10_000);
      assert.deepEqual(await store.variables('u', 's'), {});
      assert.equal(await store.bucket(bucketIdOf('u', 's')), undefined);
      assert.equal(await store.delete('u', 's', 'a'), false);
      assert.deepEqual(await store.variables('u', 'kept'), { a: 1 });
      await store.set('u', 's', 'b', 2);
      assert.deepEqual(await store.variables('u', 's'), { b: 2 });
      assert.equal((await store.bucket(bucketIdOf('u', 's')))?.createdAt, clock.t);
      clock.advance(60_000);
      const swept = await store.sweep();
      if (!b.expiresItself) assert.equal(swept, 2);
      assert.deepEqual(await store.list(), []);
    });

    void test('touch is queued, shown at once, and written on flush with the client name', async () => {
      const { store, storage, clock } = await fresh({ ttlSeconds: 100 });
      const id = bucketIdOf('u', 's');
      store.touch('u', 's', 'copilot');
      assert.equal(await storage.get(id), undefined, 'a touch writes nothing by itself');
      assert.deepEqual(await store.bucket(id), {
        id, user: 'u', sessionKey: 's', clientName: 'copilot', createdAt: clock.t, lastUsed: clock.t, expiresAt: clock.t + 100_000, vars: {},
      });
      await store.flush();
      const stored = await storage.get(id);
      assert.equal(stored?.lastUsed, clock.t);
      assert.equal(stored?.clientName, 'copilot');
      clock.advance(5);
      await store.set('u', 's', 'x', 1); // carries the last use and keeps the client name
      assert.equal((await storage.get(id))?.lastUsed, clock.t);
      assert.equal((await store.bucket(id))?.clientName, 'copilot');
      clock.advance(10);
      store.touch('u', 'newer');
      assert.deepEqual((await store.list()).map((v) => v.sessionKey), ['newer', 's']);
    });

    void test('write-back applies what the tool changed and keeps what others changed', async () => {
      const { store } = await fresh();
      await store.set('alice', 's', 'cursor', 0);
      await store.set('alice', 's', 'stale', 'x');
      await store.set('alice', 's', 'other', 'o');
      const snapshot = { user: 'alice', groups: ['admin'], ...(await store.variables('alice', 's')) };
      await store.set('alice', 's', 'other', 'changed meanwhile');
      const returned = { ...snapshot, cursor: 10, token: 'abc', user: 'mallory' } as Record<string, unknown>;
      delete returned.stale;
      const wb = await store.writeBack('alice', 's', snapshot, returned);
      assert.deepEqual(wb, { applied: true, changed: ['cursor', 'token', 'stale'], strippedReserved: ['user'] });
      assert.deepEqual(await store.variables('alice', 's'), { cursor: 10, token: 'abc', other: 'changed meanwhile' });
    });

    void test('write-back over a key another call changed is refused whole, naming the key', async () => {
      const { store, storage } = await fresh();
      await store.set('alice', 's', 'counter', 1);
      const snapshot = await store.variables('alice', 's');
      await store.set('alice', 's', 'counter', 5); // another call, after the snapshot
      const before = await storage.get(bucketIdOf('alice', 's'));
      const wb = await store.writeBack('alice', 's', snapshot, { counter: 2, also: 'x' });
      assert.equal(wb.applied, false);
      assert.ok(!wb.applied && wb.conflicts?.join() === 'counter' && /'counter' was changed by another call.*none of its session changes were written/.test(wb.reason));
      assert.deepEqual(await store.variables('alice', 's'), { counter: 5 });
      assert.deepEqual(await storage.get(bucketIdOf('alice', 's')), before);
      // A key deleted meanwhile, or created meanwhile, conflicts too.
      await store.set('alice', 's', 'fresh', 1);
      assert.equal((await store.writeBack('alice', 's', {}, { fresh: 2 })).applied, false);
      assert.equal((await store.writeBack('alice', 's', { gone: 1 }, {})).applied, false);
    });

    void test('1,000 concurrent increments through exclusive() end at exactly 1,000; 200 parallel sets all land', async () => {
      const { store } = await fresh();
      const increment = () =>
        store.exclusive('u', 'c', async () => {
          const snapshot = await store.variables('u', 'c');
          const wb = await store.writeBack('u', 'c', snapshot, { ...snapshot, counter: ((snapshot.counter as number | undefined) ?? 0) + 1 });
          assert.ok(wb.applied, !wb.applied ? wb.reason : '');
        });
      await Promise.all(Array.from({ length: 1000 }, increment));
      assert.equal((await store.variables('u', 'c')).counter, 1000);
      await Promise.all(Array.from({ length: 200 }, (_, i) => store.set('u', 'p', `v${i}`, i)));
      const vars = await store.variables('u', 'p');
      assert.equal(Object.keys(vars).length, 200);
      for (let i = 0; i < 200; i++) assert.equal(vars[`v${i}`], i);
    });
  });
}
