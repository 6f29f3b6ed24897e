import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { jsonEqual, jsonProblem, utf8Bytes } from '../../../src/core/json/json-value';

void describe('jsonProblem', () => {
  void test('accepts every JSON type, nested', () => {
    for (const v of ['', 's', 0, -1.5, 1e300, true, false, null, [], {}, [1, 'a', null, { b: [true] }], { a: { b: { c: [] } } }]) {
      assert.equal(jsonProblem(v), undefined, JSON.stringify(v));
    }
    assert.equal(jsonProblem(Object.create(null)), undefined);
  });

  void test('a shared (non-cyclic) reference is fine', () => {
    const shared = { x: 1 };
    assert.equal(jsonProblem({ a: shared, b: [shared, shared] }), undefined);
  });

  void test('names what JSON cannot carry, and where', () => {
    const holey: unknown[] = [1];
    holey[2] = 3;
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /^value is undefined/],
      [() => 1, /^value is a function/],
      [NaN, /^value is NaN/],
      [Infinity, /^value is Infinity/],
      [-Infinity, /-Infinity/],
      [10n, /bigint/],
      [Symbol('s'), /symbol/],
      [{ a: [1, { b: undefined }] }, /^value\.a\[1\]\.b is undefined/],
      [{ 'odd key': NaN }, /^value\["odd key"\] is NaN/],
      [cyclic, /^value\.self refers back to itself \(a cycle\)/],
      [holey, /^value\[1\] is an empty slot/],
      [new Date(0), /is a Date, not a plain JSON object/],
      [new Map(), /is a Map/],
      [{ toJSON: () => 1 }, /value\.toJSON is a function/],
    ];
    for (const [v, re] of cases) assert.match(jsonProblem(v) ?? '(accepted)', re);
  });

  void test('very deep nesting is refused instead of overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    assert.match(jsonProblem(deep) ?? '', /nested more than \d+ levels/);
  });
});

void test('jsonEqual ignores key order and distinguishes types', () => {
  assert.ok(jsonEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }));
  assert.ok(!jsonEqual(1, '1'));
  assert.ok(!jsonEqual([1], { 0: 1 }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 }));
  assert.ok(!jsonEqual(null, {}));
  assert.ok(!jsonEqual([1, 2], [2, 1]));
});

void test('utf8Bytes counts bytes, not characters', () => {
  assert.equal(utf8Bytes('abc'), 3);
  assert.equal(utf8Bytes('é'), 2);
  assert.equal(utf8Bytes('😀'), 4);
});
