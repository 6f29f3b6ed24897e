import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreChange } from '../../../src/core/session/types';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { SessionError, SessionStore, bucketIdOf, type SessionStoreOptions } from '../../../src/core/session/store';
import { FakeClock } from './helpers';

async function openStore(opts: Partial<SessionStoreOptions> = {}) {
  const storage = opts.storage ?? new MemoryStorage();
  const clock = (opts.clock as FakeClock | undefined) ?? new FakeClock();
  const store = await SessionStore.open({ sweepIntervalMs: 0, ...opts, storage, clock });
  return { store, storage, clock };
}

void describe('SessionStore values', () => {
  void test('keeps every JSON type as stored', async () => {
    const { store } = await openStore();
    const values: Record<string, unknown> = {
      target: '10.0.0.5',
      budget: 1000,
      ratio: -0.25,
      flag: false,
      list: ['a', 1, null, [true]],
      obj: { nested: { n: 1 }, s: '1' },
      nothing: null,
      empty_string: '',
      numeric_string: '1000',
    };
    for (const [k, v] of Object.entries(values)) await store.set('alice', 's1', k, v);
    const got = store.variables('alice', 's1');
    assert.deepEqual(got, values);
    assert.equal(typeof got.budget, 'number');
    assert.equal(typeof got.numeric_string, 'string');
    assert.strictEqual(got.nothing, null);
  });

  void test('deep copies in and out: callers cannot mutate stored state', async () => {
    const { store } = await openStore();
    const value = { list: [1, 2] };
    await store.set('u', 's', 'v', value);
    value.list.push(3);
    const out = store.variables('u', 's') as { v: { list: number[] } };
    assert.deepEqual(out.v.list, [1, 2]);
    out.v.list.push(99);
    const view = store.list()[0];
    assert.ok(view);
    (view.vars.v as { list: number[] }).list.push(100);
    assert.deepEqual(store.variables('u', 's'), { v: { list: [1, 2] } });
  });

  void test('unset is absent (never null); null is a stored value', async () => {
    const { store } = await openStore();
    assert.deepEqual(store.variables('u', 's'), {});
    await store.set('u', 's', 'n', null);
    const vars = store.variables('u', 's');
    assert.ok(Object.hasOwn(vars, 'n'));
    assert.equal(vars.n, null);
    assert.equal(Object.hasOwn(vars, 'never_set'), false);
  });

  void test('overwrite replaces the value and its type', async () => {
    const { store } = await openStore();
    await store.set('u', 's', 'x', '1');
    await store.set('u', 's', 'x', 1);
    assert.deepEqual(store.variables('u', 's'), { x: 1 });
  });

  void test('refuses bad and reserved names with the validator\'s message, storing nothing', async () => {
    const { store, storage } = await openStore();
    for (const name of ['user', 'email', 'groups', 'tools']) {
      await assert.rejects(store.set('u', 's', name, 'x'), (e: unknown) => e instanceof SessionError && /reserved identity key/.test(e.message));
      await assert.rejects(store.delete('u', 's', name), /read-only/);
    }
    for (const name of ['Bad', '9lives', 'a-b', '', 'x y']) {
      await assert.rejects(store.set('u', 's', name, 1), SessionError);
    }
    await assert.rejects(store.set('u', 's', 7 as unknown as string, 1), /must be a string/);
    assert.deepEqual(store.list(), []);
    assert.equal((await storage.loadAll()).size, 0);
  });

  void test('refuses values JSON cannot carry, saying where', async () => {
    const { store } = await openStore();
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    await assert.rejects(store.set('u', 's', 'a', undefined), /Cannot store 'a': value is undefined/);
    await assert.rejects(store.set('u', 's', 'a', NaN), /NaN/);
    await assert.rejects(store.set('u', 's', 'a', { f: () => 1 }), /value\.f is a function/);
    await assert.rejects(store.set('u', 's', 'a', cyclic), /cycle/);
    await assert.rejects(store.set('u', 's', 'a', [Infinity]), /value\[0\] is Infinity/);
    assert.deepEqual(store.variables('u', 's'), {});
  });

  void test('a variable named __proto__ is stored as plain data', async () => {
    const { store } = await openStore();
    await store.set('u', 's', '__proto__', { polluted: true });
    await store.set('u', 's', 'constructor', 1);
    const vars = store.variables('u', 's');
    assert.deepEqual(Object.keys(vars).sort(), ['__proto__', 'constructor']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  void test('rejects empty or non-string owners', async () => {
    const { store } = await openStore();
    await assert.rejects(store.set('', 's', 'a', 1), /Session user must be a non-empty string/);
    await assert.rejects(store.set('u', '', 'a', 1), /Session key must be a non-empty string/);
    await assert.rejects(store.touch(undefined as unknown as string, 's'), /Session user/);
  });

  void test('delete reports whether the variable existed and never creates a bucket', async () => {
    const { store } = await openStore();
    assert.equal(await store.delete('u', 's', 'a'), false);
    assert.deepEqual(store.list(), []);
    await store.set('u', 's', 'a', 1);
    await store.set('u', 's', 'b', 2);
    assert.equal(await store.delete('u', 's', 'a'), true);
    assert.equal(await store.delete('u', 's', 'a'), false);
    assert.deepEqual(store.variables('u', 's'), { b: 2 });
  });

  void test('clear removes the bucket from memory and storage', async () => {
    const { store, storage } = await openStore();
    await store.set('u', 's', 'a', 1);
    await store.set('u', 'other', 'a', 2);
    await store.clear('u', 's');
    assert.deepEqual(store.variables('u', 's'), {});
    assert.equal(store.bucket(bucketIdOf('u', 's')), undefined);
    assert.deepEqual([...(await storage.loadAll()).keys()], [bucketIdOf('u', 'other')]);
    await store.clear('nobody', 'x'); // no-op
  });
});

void describe('SessionStore isolation', () => {
  void test('separate buckets per session key and per user', async () => {
    const { store } = await openStore();
    await store.set('alice', 'tab1', 'x', 1);
    await store.set('alice', 'tab2', 'x', 2);
    await store.set('bob', 'tab1', 'x', 3);
    await store.set('anonymous', 'k', 'x', 4);
    assert.deepEqual(store.variables('alice', 'tab1'), { x: 1 });
    assert.deepEqual(store.variables('alice', 'tab2'), { x: 2 });
    assert.deepEqual(store.variables('bob', 'tab1'), { x: 3 });
    assert.deepEqual(store.variables('anonymous', 'k'), { x: 4 });
    assert.deepEqual(store.variables('anonymous', 'tab1'), {});
    assert.equal(store.list().length, 4);
  });

  void test('separator characters in users or keys cannot reach another bucket', async () => {
    const { store } = await openStore();
    const owners: Array<[string, string]> = [
      ['a:b', 'c'],
      ['a', 'b:c'],
      ['a%3a', 'b'],
      ['a', '%3ab'],
      ['a/b', '../c'],
      ['a\u0000', 'b'],
      ['a', '\u0000b'],
    ];
    for (const [i, [u, k]] of owners.entries()) await store.set(u, k, 'who', i);
    for (const [i, [u, k]] of owners.entries()) assert.deepEqual(store.variables(u, k), { who: i }, `${u} / ${k}`);
    assert.equal(store.list().length, owners.length);
  });

  void test('views carry owner, times and expiry', async () => {
    const { store, clock } = await openStore({ ttlSeconds: 100 });
    await store.touch('u', 's', 'copilot');
    const id = bucketIdOf('u', 's');
    assert.deepEqual(store.bucket(id), {
      id,
      user: 'u',
      sessionKey: 's',
      clientName: 'copilot',
      createdAt: clock.t,
      lastUsed: clock.t,
      expiresAt: clock.t + 100_000,
      vars: {},
    });
    clock.advance(5);
    await store.touch('u', 's');
    assert.equal(store.bucket(id)?.clientName, 'copilot');
    assert.equal(store.bucket(id)?.lastUsed, clock.t);
  });

  void test('list is most recently used first', async () => {
    const { store, clock } = await openStore();
    await store.touch('u', 'old');
    clock.advance(10);
    await store.touch('u', 'new');
    assert.deepEqual(store.list().map((b) => b.sessionKey), ['new', 'old']);
  });
});

void describe('SessionStore size limits', () => {
  void test('a value over maxValueBytes is refused with limit and size; nothing stored', async () => {
    const { store, storage } = await openStore({ limits: { maxValueBytes: 100 } });
    await store.set('u', 's', 'ok', 'x'.repeat(98)); // 100 bytes with quotes
    await assert.rejects(store.set('u', 's', 'big', 'x'.repeat(99)), (e: unknown) => {
      assert.ok(e instanceof SessionError);
      assert.match(e.message, /'big'.*101 bytes.*maxValueBytes.*100 bytes.*Nothing was stored/);
      return true;
    });
    // UTF-8 bytes, not characters: 50 × 'é' is 102 bytes of JSON.
    await assert.rejects(store.set('u', 's', 'accents', 'é'.repeat(50)), /102 bytes/);
    assert.deepEqual(Object.keys(store.variables('u', 's')), ['ok']);
    assert.deepEqual(Object.keys((await storage.loadAll()).get(bucketIdOf('u', 's'))!.vars), ['ok']);
  });

  void test('a bucket over maxBucketBytes is refused; the previous value stays', async () => {
    const { store } = await openStore({ limits: { maxBucketBytes: 40 } });
    await store.set('u', 's', 'a', 'x'.repeat(10)); // {"a":"xxxxxxxxxx"} = 18
    await store.set('u', 's', 'b', 'y'.repeat(10)); // 18 + 17 = 35
    // {"a":"xxxxxxxxxx","b":"yyyyyyyyyy","c":"zz"} is 44 bytes
    await assert.rejects(store.set('u', 's', 'c', 'zz'), /44 bytes.*maxBucketBytes.*40 bytes; 'c' was not stored/);
    await assert.rejects(store.set('u', 's', 'a', 'x'.repeat(20)), /maxBucketBytes/);
    assert.deepEqual(store.variables('u', 's'), { a: 'x'.repeat(10), b: 'y'.repeat(10) });
    // Size is per bucket: another session has its own room.
    await store.set('u', 's2', 'c', 'zz');
  });

  void test('the bucket size is exactly the variables\' JSON', async () => {
    const vars = { a: 'é', b: [1, 2], c: { d: null } };
    const exact = Buffer.byteLength(JSON.stringify(vars));
    const fits = await openStore({ limits: { maxBucketBytes: exact } });
    for (const [k, v] of Object.entries(vars)) await fits.store.set('u', 's', k, v);
    const tight = await openStore({ limits: { maxBucketBytes: exact - 1 } });
    await tight.store.set('u', 's', 'a', 'é');
    await tight.store.set('u', 's', 'b', [1, 2]);
    await assert.rejects(tight.store.set('u', 's', 'c', { d: null }), new RegExp(`${exact} bytes`));
  });

  void test('bad options are refused at open', async () => {
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), ttlSeconds: 0 }), /ttlSeconds must be a positive number/);
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), limits: { maxValueBytes: -1 } }), /maxValueBytes/);
    await assert.rejects(SessionStore.open({ storage: new MemoryStorage(), sweepIntervalMs: NaN }), /sweepIntervalMs/);
  });
});

void describe('SessionStore TTL', () => {
  void test('an expired bucket is never served; the next write starts fresh', async () => {
    const { store, clock, storage } = await openStore({ ttlSeconds: 60 });
    await store.set('u', 's', 'a', 1);
    const id = bucketIdOf('u', 's');
    clock.advance(59_999);
    assert.deepEqual(store.variables('u', 's'), { a: 1 });
    clock.advance(1);
    assert.deepEqual(store.variables('u', 's'), {});
    assert.deepEqual(store.list(), []);
    assert.equal(store.bucket(id), undefined);
    assert.equal(await store.delete('u', 's', 'a'), false);
    await store.set('u', 's', 'b', 2);
    assert.deepEqual(store.variables('u', 's'), { b: 2 });
    assert.equal(store.bucket(id)?.createdAt, clock.t);
    assert.deepEqual((await storage.loadAll()).get(id)?.vars, { b: 2 });
  });

  void test('every use extends the TTL: set, delete, write-back, touch', async () => {
    const { store, clock } = await openStore({ ttlSeconds: 10 });
    const uses: Array<() => Promise<unknown>> = [
      () => store.set('u', 's', 'a', 1),
      () => store.delete('u', 's', 'zz'),
      () => store.writeBack('u', 's', {}, { b: 1 }),
      () => store.touch('u', 's'),
    ];
    await store.set('u', 's', 'keep', true);
    for (const use of uses) {
      clock.advance(9_000);
      await use();
    }
    clock.advance(9_000);
    assert.equal(store.variables('u', 's').keep, true);
  });

  void test('sweep removes expired buckets from memory and storage and announces each', async () => {
    const { store, clock, storage } = await openStore({ ttlSeconds: 10 });
    await store.set('u', 'old', 'a', 1);
    clock.advance(6_000);
    await store.set('u', 'young', 'a', 1);
    const events: StoreChange[] = [];
    store.onDidChange((e) => events.push(e));
    clock.advance(5_000);
    assert.equal(await store.sweep(), 1);
    assert.deepEqual(events, [{ bucketId: bucketIdOf('u', 'old'), reason: 'expired' }]);
    assert.deepEqual([...(await storage.loadAll()).keys()], [bucketIdOf('u', 'young')]);
    assert.equal(await store.sweep(), 0);
  });

  void test('open removes buckets that expired while the store was closed', async () => {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const first = await SessionStore.open({ storage, clock, ttlSeconds: 10, sweepIntervalMs: 0 });
    await first.set('u', 'a', 'v', 1);
    clock.advance(8_000);
    await first.set('u', 'b', 'v', 2);
    first.dispose();
    clock.advance(5_000);
    const second = await SessionStore.open({ storage, clock, ttlSeconds: 10, sweepIntervalMs: 0 });
    assert.deepEqual(second.list().map((b) => b.sessionKey), ['b']);
    assert.deepEqual([...(await storage.loadAll()).keys()], [bucketIdOf('u', 'b')]);
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
    await store.flush();
    assert.equal((await storage.loadAll()).size, 0);
    store.dispose();
    await store.set('u', 's', 'b', 1);
    clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await storage.loadAll()).size, 1, 'no sweep after dispose');
  });
});

void describe('SessionStore change events', () => {
  void test('one event per change, with its reason', async () => {
    const { store, clock } = await openStore({ ttlSeconds: 10 });
    const events: StoreChange[] = [];
    store.onDidChange((e) => events.push(e));
    const id = bucketIdOf('u', 's');
    await store.touch('u', 's', 'client');
    await store.set('u', 's', 'a', 1);
    await store.delete('u', 's', 'a');
    await store.delete('u', 's', 'missing'); // only touches
    await store.writeBack('u', 's', {}, { b: 2 });
    await store.writeBack('u', 's', { b: 2 }, { b: 2 }); // no change: a touch
    await store.writeBack('u', 's', {}, { Bad: 1 }); // rejected: no event
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
  });

  void test('the listener sees the new state; a throwing listener breaks nothing', async () => {
    const { store } = await openStore();
    const seen: unknown[] = [];
    store.onDidChange(() => {
      throw new Error('listener bug');
    });
    const sub = store.onDidChange(() => seen.push(store.variables('u', 's').a));
    await store.set('u', 's', 'a', 1);
    sub.dispose();
    await store.set('u', 's', 'a', 2);
    assert.deepEqual(seen, [1]);
    assert.deepEqual(store.variables('u', 's'), { a: 2 });
  });
});
