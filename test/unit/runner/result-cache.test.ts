import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cacheKey, ResultCache, stableJson } from '../../../src/core/runner/result-cache';

const outcome = (stdout: string) => ({ code: 0, stdout, stderr: '', durationMs: 1 });

describe('ResultCache', () => {
  test('stableJson ignores key order at every level', () => {
    assert.equal(stableJson({ b: 1, a: { d: [1, { y: 1, x: 2 }], c: null } }), stableJson({ a: { c: null, d: [1, { x: 2, y: 1 }] }, b: 1 }));
  });

  test('the key separates tools, params and stores', () => {
    const k = cacheKey('t', { a: 1 }, { user: 'alice' });
    assert.equal(k, cacheKey('t', { a: 1 }, { user: 'alice' }));
    assert.notEqual(k, cacheKey('u', { a: 1 }, { user: 'alice' }));
    assert.notEqual(k, cacheKey('t', { a: 2 }, { user: 'alice' }));
    assert.notEqual(k, cacheKey('t', { a: 1 }, { user: 'bob' }));
    assert.notEqual(k, cacheKey('t', { a: 1 }, { user: 'alice', target: 'x' }));
  });

  test('entries expire after their ttl', () => {
    let now = 1000;
    const c = new ResultCache(10, { now: () => now });
    c.set('k', outcome('x'), 2);
    now += 1999;
    assert.equal(c.get('k')?.stdout, 'x');
    now += 1;
    assert.equal(c.get('k'), undefined);
    assert.equal(c.size, 0);
  });

  test('the least recently used entry goes first when full', () => {
    const c = new ResultCache(2, { now: () => 0 });
    c.set('a', outcome('a'), 60);
    c.set('b', outcome('b'), 60);
    c.get('a');
    c.set('c', outcome('c'), 60);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a')?.stdout, 'a');
    assert.equal(c.get('c')?.stdout, 'c');
  });
});
