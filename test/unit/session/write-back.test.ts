import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { computeWriteBack, type WriteBackPlan } from '../../../src/core/session/write-back';

const identity = { user: 'alice', email: 'a@x', groups: ['admin'], tools: ['t'] };

function ok(plan: WriteBackPlan): Extract<WriteBackPlan, { ok: true }> {
  if (!plan.ok) assert.fail(`expected ok, got: ${plan.reason}`);
  return plan;
}

void describe('computeWriteBack', () => {
  void test('sets new keys, applies changes, deletes removed keys', () => {
    const current = { keep: 1, change: 'a', gone: true };
    const snapshot = { ...identity, ...current };
    const returned = { ...identity, keep: 1, change: 'b', added: [1, 2] };
    const plan = ok(computeWriteBack(current, snapshot, returned));
    assert.deepEqual(plan.next, { keep: 1, change: 'b', added: [1, 2] });
    assert.deepEqual(plan.changed, ['change', 'added', 'gone']);
    assert.deepEqual(plan.strippedReserved, []);
  });

  void test('keys the tool did not touch keep their current value (no lost updates)', () => {
    // Another call changed `a` and added `c` after the tool got its snapshot.
    const snapshot = { ...identity, a: 1, b: 1 };
    const current = { a: 99, b: 1, c: 'other' };
    const returned = { ...identity, a: 1, b: 2 };
    const plan = ok(computeWriteBack(current, snapshot, returned));
    assert.deepEqual(plan.next, { a: 99, b: 2, c: 'other' });
    assert.deepEqual(plan.changed, ['b']);
  });

  void test('a key the tool changed wins over a concurrent change; a key it deleted is deleted', () => {
    const snapshot = { a: 1, b: 1 };
    const current = { a: 50, b: 50 };
    const plan = ok(computeWriteBack(current, snapshot, { a: 2 }));
    assert.deepEqual(plan.next, { a: 2 });
    assert.deepEqual(plan.changed, ['a', 'b']);
  });

  void test('deep equality decides "changed": an equal object with other key order is untouched', () => {
    const snapshot = { o: { x: 1, y: [1, 2] } };
    const current = { o: { x: 'concurrent' } };
    const plan = ok(computeWriteBack(current, snapshot, { o: { y: [1, 2], x: 1 } }));
    assert.deepEqual(plan.next, { o: { x: 'concurrent' } });
    assert.deepEqual(plan.changed, []);
    const changedInside = ok(computeWriteBack(current, snapshot, { o: { x: 1, y: [1, 3] } }));
    assert.deepEqual(changedInside.next, { o: { x: 1, y: [1, 3] } });
  });

  void test('deleting a key that another call already removed changes nothing', () => {
    const plan = ok(computeWriteBack({}, { a: 1 }, {}));
    assert.deepEqual(plan.next, {});
    assert.deepEqual(plan.changed, []);
  });

  void test('types are preserved, null is a value (not a deletion)', () => {
    const plan = ok(computeWriteBack({ n: 1 }, { n: 1 }, { n: null, s: '1', b: false, l: [], o: {} }));
    assert.deepEqual(plan.next, { n: null, s: '1', b: false, l: [], o: {} });
  });

  void test('undefined counts as absent, as after a JSON round trip', () => {
    const plan = ok(computeWriteBack({ a: 1, b: 2 }, { a: 1, b: 2 }, { a: undefined, b: 2, c: undefined }));
    assert.deepEqual(plan.next, { b: 2 });
    assert.deepEqual(plan.changed, ['a']);
  });

  void test('reserved identity keys are stripped: never set, changed or deleted', () => {
    const snapshot = { ...identity, v: 1 };
    const returned = { user: 'mallory', email: 'a@x', tools: ['*'], v: 1 }; // groups deleted
    const plan = ok(computeWriteBack({ v: 1 }, snapshot, returned));
    assert.deepEqual(plan.next, { v: 1 });
    assert.deepEqual(plan.strippedReserved, ['groups', 'tools', 'user']);
    assert.deepEqual(plan.changed, []);
    // Unchanged identity keys are not reported.
    assert.deepEqual(ok(computeWriteBack({}, identity, { ...identity })).strippedReserved, []);
    // Identity keys in returned but absent from the snapshot are still never stored.
    const added = ok(computeWriteBack({}, {}, { user: 'x', ok_key: 1 }));
    assert.deepEqual(added.next, { ok_key: 1 });
    assert.deepEqual(added.strippedReserved, ['user']);
  });

  void test('any non-slug key rejects the whole write-back, naming it', () => {
    for (const bad of ['Bad', '1st', 'has-dash', 'a.b', '']) {
      const plan = computeWriteBack({ a: 1 }, { a: 1 }, { a: 2, fine: 1, [bad]: 'x' });
      assert.equal(plan.ok, false, bad);
      if (!plan.ok) {
        assert.ok(plan.reason.includes(JSON.stringify(bad)), plan.reason);
        assert.match(plan.reason, /Nothing was stored/);
      }
    }
    const many = computeWriteBack({}, {}, { A: 1, B: 2 });
    assert.ok(!many.ok && /keys "A", "B" are not valid/.test(many.reason));
  });

  void test('a value JSON cannot carry rejects the whole write-back', () => {
    const plan = computeWriteBack({}, {}, { a: 1, f: () => 0 });
    assert.ok(!plan.ok);
    assert.match(plan.reason, /context\["f"\] is a function/);
    const nan = computeWriteBack({}, {}, { n: { deep: [NaN] } });
    assert.ok(!nan.ok && /context\["n"\]\.deep\[0\] is NaN/.test(nan.reason));
  });

  void test('non-object inputs are rejected with a reason', () => {
    assert.ok(!computeWriteBack({}, {}, null).ok);
    assert.ok(!computeWriteBack({}, {}, [1]).ok);
    assert.ok(!computeWriteBack({}, 'x', {}).ok);
    const r = computeWriteBack({}, {}, 5);
    assert.ok(!r.ok && /returned context is not an object/.test(r.reason));
  });

  void test('in-place mutation is the caller\'s job: only the object passed in is observed', () => {
    const snapshot = { ...identity, cursor: 0 };
    let context: Record<string, unknown> = structuredClone(snapshot);
    const seen = context;
    context.cursor = 5; // mutate in place: observed
    context = { cursor: 999 }; // rebinding: the caller never sees this object
    void context;
    assert.deepEqual(ok(computeWriteBack({ cursor: 0 }, snapshot, seen)).next, { cursor: 5 });
  });

  void test('a variable named __proto__ stays plain data', () => {
    const plan = ok(computeWriteBack({}, {}, JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>));
    assert.ok(Object.hasOwn(plan.next, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(plan.next), Object.prototype);
  });

  void test('does not mutate its inputs', () => {
    const current = { a: 1, b: 2 };
    const snapshot = { a: 1, b: 2 };
    const returned = { a: 3 };
    computeWriteBack(current, snapshot, returned);
    assert.deepEqual(current, { a: 1, b: 2 });
    assert.deepEqual(snapshot, { a: 1, b: 2 });
    assert.deepEqual(returned, { a: 3 });
  });
});
