import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { planWriteBack, type WriteBackPlan } from '../../../src/core/session/write-back';

const identity = { user: 'alice', email: 'a@x', groups: ['admin'], tools: ['t'] };

function ok(plan: WriteBackPlan): Extract<WriteBackPlan, { ok: true }> {
  if (!plan.ok) assert.fail(`expected ok, got: ${plan.reason}`);
  return plan;
}

const sets = (plan: WriteBackPlan) => Object.fromEntries(ok(plan).set);

void describe('planWriteBack', () => {
  void test('new keys and changed values are set, removed keys deleted, untouched keys left out', () => {
    const snapshot = { ...identity, keep: 1, change: 'a', gone: true };
    const returned = { ...identity, keep: 1, change: 'b', added: [1, 2] };
    const plan = ok(planWriteBack(snapshot, returned));
    assert.deepEqual(Object.fromEntries(plan.set), { change: 'b', added: [1, 2] });
    assert.deepEqual(plan.remove, ['gone']);
    assert.deepEqual(plan.strippedReserved, []);
  });

  void test('deep equality decides "changed": an equal object with other key order is untouched', () => {
    const snapshot = { o: { x: 1, y: [1, 2] } };
    assert.deepEqual(sets(planWriteBack(snapshot, { o: { y: [1, 2], x: 1 } })), {});
    assert.deepEqual(sets(planWriteBack(snapshot, { o: { x: 1, y: [1, 3] } })), { o: { x: 1, y: [1, 3] } });
  });

  void test('types are preserved, null is a value (not a deletion)', () => {
    const plan = ok(planWriteBack({ n: 1 }, { n: null, s: '1', b: false, l: [], o: {} }));
    assert.deepEqual(Object.fromEntries(plan.set), { n: null, s: '1', b: false, l: [], o: {} });
    assert.deepEqual(plan.remove, []);
  });

  void test('undefined counts as absent, as after a JSON round trip', () => {
    const plan = ok(planWriteBack({ a: 1, b: 2 }, { a: undefined, b: 2, c: undefined }));
    assert.deepEqual(Object.fromEntries(plan.set), {});
    assert.deepEqual(plan.remove, ['a']);
  });

  void test('reserved identity keys are stripped: never set, changed or deleted', () => {
    const snapshot = { ...identity, v: 1 };
    const returned = { user: 'mallory', email: 'a@x', tools: ['*'], v: 1 }; // groups deleted
    const plan = ok(planWriteBack(snapshot, returned));
    assert.deepEqual(Object.fromEntries(plan.set), {});
    assert.deepEqual(plan.remove, []);
    assert.deepEqual(plan.strippedReserved, ['groups', 'tools', 'user']);
    // Unchanged identity keys are not reported.
    assert.deepEqual(ok(planWriteBack(identity, { ...identity })).strippedReserved, []);
    // Identity keys in returned but absent from the snapshot are still never stored.
    const added = ok(planWriteBack({}, { user: 'x', ok_key: 1 }));
    assert.deepEqual(Object.fromEntries(added.set), { ok_key: 1 });
    assert.deepEqual(added.strippedReserved, ['user']);
  });

  void test('any non-slug key rejects the whole write-back, naming it', () => {
    for (const bad of ['Bad', '1st', 'has-dash', 'a.b', '']) {
      const plan = planWriteBack({ a: 1 }, { a: 2, fine: 1, [bad]: 'x' });
      assert.equal(plan.ok, false, bad);
      if (!plan.ok) {
        assert.ok(plan.reason.includes(JSON.stringify(bad)), plan.reason);
        assert.match(plan.reason, /Nothing was stored/);
      }
    }
    const many = planWriteBack({}, { A: 1, B: 2 });
    assert.ok(!many.ok && /keys "A", "B" are not valid/.test(many.reason));
  });

  void test('a value JSON cannot carry rejects the whole write-back', () => {
    const plan = planWriteBack({}, { a: 1, f: () => 0 });
    assert.ok(!plan.ok);
    assert.match(plan.reason, /context\["f"\] is a function/);
    const nan = planWriteBack({}, { n: { deep: [NaN] } });
    assert.ok(!nan.ok && /context\["n"\]\.deep\[0\] is NaN/.test(nan.reason));
  });

  void test('non-object inputs are rejected with a reason', () => {
    assert.ok(!planWriteBack({}, null).ok);
    assert.ok(!planWriteBack({}, [1]).ok);
    assert.ok(!planWriteBack('x', {}).ok);
    const r = planWriteBack({}, 5);
    assert.ok(!r.ok && /returned context is not an object/.test(r.reason));
  });

  void test("in-place mutation is the caller's job: only the object passed in is observed", () => {
    const snapshot = { ...identity, cursor: 0 };
    let context: Record<string, unknown> = structuredClone(snapshot);
    const seen = context;
    context.cursor = 5; // mutate in place: observed
    context = { cursor: 999 }; // rebinding: the caller never sees this object
    void context;
    assert.deepEqual(sets(planWriteBack(snapshot, seen)), { cursor: 5 });
  });

  void test('a variable named __proto__ stays plain data', () => {
    const plan = ok(planWriteBack({}, JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>));
    assert.deepEqual([...plan.set.keys()], ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  void test('does not mutate its inputs', () => {
    const snapshot = { a: 1, b: 2 };
    const returned = { a: 3 };
    planWriteBack(snapshot, returned);
    assert.deepEqual(snapshot, { a: 1, b: 2 });
    assert.deepEqual(returned, { a: 3 });
  });
});
