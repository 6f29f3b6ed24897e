import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { SessionStore, bucketIdOf } from '../../../src/core/session/store';
import { FakeClock, RecordingLogger } from './helpers';

const identity = { user: 'alice', email: 'a@example.com', groups: ['ops'], tools: ['ops.x'] };

async function setup(limits?: { maxValueBytes?: number; maxBucketBytes?: number }) {
  const storage = new MemoryStorage();
  const logger = new RecordingLogger();
  const store = await SessionStore.open({ storage, logger, clock: new FakeClock(), sweepIntervalMs: 0, ...(limits ? { limits } : {}) });
  return { store, storage, logger };
}

/** What the runtime does around a fn tool call. */
async function snapshotFor(store: SessionStore) {
  return { ...identity, ...(await store.variables('alice', 's')) };
}

void describe('SessionStore.writeBack', () => {
  void test('applies sets, changes and deletes, and persists them', async () => {
    const { store, storage } = await setup();
    await store.set('alice', 's', 'cursor', 0);
    await store.set('alice', 's', 'stale', 'x');
    const snapshot = await snapshotFor(store);
    const context = structuredClone(snapshot) as Record<string, unknown>;
    context.cursor = 10;
    context.token = 'abc';
    delete context.stale;
    const result = await store.writeBack('alice', 's', snapshot, context);
    assert.deepEqual(result, { applied: true, changed: ['cursor', 'token', 'stale'], strippedReserved: [] });
    assert.deepEqual(await store.variables('alice', 's'), { cursor: 10, token: 'abc' });
    assert.deepEqual(Object.fromEntries((await storage.get(bucketIdOf('alice', 's')))?.vars ?? []), { cursor: '10', token: '"abc"' });
  });

  void test('keys the tool did not touch keep values another call set meanwhile', async () => {
    const { store } = await setup();
    await store.set('alice', 's', 'a', 1);
    await store.set('alice', 's', 'b', 1);
    const snapshot = await snapshotFor(store);
    // While the tool runs, another call changes `a` and adds `c`.
    await store.set('alice', 's', 'a', 'concurrent');
    await store.set('alice', 's', 'c', 'concurrent');
    const context = structuredClone(snapshot) as Record<string, unknown>;
    context.b = 2;
    const result = await store.writeBack('alice', 's', snapshot, context);
    assert.ok(result.applied);
    assert.deepEqual(await store.variables('alice', 's'), { a: 'concurrent', b: 2, c: 'concurrent' });
  });

  void test('reserved keys are stripped and reported, never stored', async () => {
    const { store, logger } = await setup();
    const snapshot = await snapshotFor(store);
    const context = { ...snapshot, user: 'root', groups: ['admin'], v: 1 } as Record<string, unknown>;
    delete context.email;
    const result = await store.writeBack('alice', 's', snapshot, context);
    assert.deepEqual(result, { applied: true, changed: ['v'], strippedReserved: ['email', 'groups', 'user'] });
    assert.deepEqual(await store.variables('alice', 's'), { v: 1 });
    assert.ok(logger.warnings().some((w) => /reserved identity keys email, groups, user/.test(w)));
  });

  void test('a non-slug key rejects the whole write-back, with a warning; nothing changes', async () => {
    const { store, logger, storage } = await setup();
    await store.set('alice', 's', 'a', 1);
    const before = await storage.list();
    const snapshot = await snapshotFor(store);
    const result = await store.writeBack('alice', 's', snapshot, { ...snapshot, a: 2, 'Not-A-Slug': 1 });
    assert.equal(result.applied, false);
    assert.ok(!result.applied && result.reason.includes('"Not-A-Slug"'));
    assert.deepEqual(await store.variables('alice', 's'), { a: 1 });
    assert.deepEqual(await storage.list(), before);
    assert.ok(logger.warnings().some((w) => w.includes('Not-A-Slug') && w.includes('alice')));
  });

  void test('size limits apply to the result and reject it whole', async () => {
    const { store, logger } = await setup({ maxValueBytes: 20, maxBucketBytes: 50 });
    await store.set('alice', 's', 'a', 'keep');
    const big = await store.writeBack('alice', 's', {}, { b: 'x'.repeat(30), c: 1 });
    assert.ok(!big.applied && /maxValueBytes/.test(big.reason) && /'b'/.test(big.reason));
    const full = await store.writeBack('alice', 's', {}, { b: 'x'.repeat(15), c: 'y'.repeat(15), d: 'z'.repeat(15) });
    assert.ok(!full.applied && /maxBucketBytes/.test(full.reason));
    assert.deepEqual(await store.variables('alice', 's'), { a: 'keep' });
    assert.equal(logger.warnings().length, 2);
  });

  void test('a write-back to a new or expired bucket creates it', async () => {
    const { store } = await setup();
    const result = await store.writeBack('alice', 'fresh', { ...identity }, { ...identity, x: [1] });
    assert.ok(result.applied);
    assert.deepEqual(await store.variables('alice', 'fresh'), { x: [1] });
  });

  void test('values written back are copied: later mutation of the context changes nothing', async () => {
    const { store } = await setup();
    const context: Record<string, unknown> = { obj: { n: 1 } };
    await store.writeBack('alice', 's', {}, context);
    (context.obj as { n: number }).n = 2;
    assert.deepEqual(await store.variables('alice', 's'), { obj: { n: 1 } });
  });

  void test('a key the tool changed that another call changed meanwhile refuses the whole write-back', async () => {
    const { store, logger } = await setup();
    await store.set('alice', 's', 'a', 1);
    const snapshot = await snapshotFor(store);
    await store.set('alice', 's', 'a', 'concurrent');
    const result = await store.writeBack('alice', 's', snapshot, { ...snapshot, a: 2, b: 'also refused' });
    assert.ok(!result.applied);
    assert.deepEqual(!result.applied && result.conflicts, ['a']);
    assert.deepEqual(await store.variables('alice', 's'), { a: 'concurrent' });
    assert.ok(logger.warnings().some((w) => /'a' was changed by another call/.test(w)));
  });

  void test('concurrent write-backs from two tools of different keys both land', async () => {
    const { store } = await setup();
    const snapshot = await snapshotFor(store);
    const [r1, r2] = await Promise.all([
      store.writeBack('alice', 's', snapshot, { ...snapshot, from_one: 1 }),
      store.writeBack('alice', 's', snapshot, { ...snapshot, from_two: 2 }),
    ]);
    assert.ok(r1.applied && r2.applied);
    assert.deepEqual(await store.variables('alice', 's'), { from_one: 1, from_two: 2 });
  });
});
