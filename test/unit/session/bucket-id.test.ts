import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bucketIdOf } from '../../../src/core/session/store';

void describe('bucketIdOf', () => {
  void test('separator characters cannot make two owners collide', () => {
    const pairs: Array<[string, string]> = [
      ['a:b', 'c'],
      ['a', 'b:c'],
      ['a%3a', 'b'],
      ['a%003a', 'b'],
      ['a', '%003ab'],
      ['a/b', 'c'],
      ['a', 'b/c'],
      ['', 'a:'],
      [':', ''],
    ];
    const ids = pairs.map(([u, k]) => bucketIdOf(u, k));
    assert.equal(new Set(ids).size, ids.length, ids.join(' | '));
  });

  void test('ids use only file- and key-safe characters and keep plain names readable', () => {
    assert.equal(bucketIdOf('alice', 'abc-123'), 'alice:abc-123');
    assert.equal(bucketIdOf('bob@example.com', 'k'), 'bob@example.com:k');
    const id = bucketIdOf('a b/c\\d\n\0é😀', 'x"y\'z\ud800');
    assert.match(id, /^[A-Za-z0-9._@~%-]*:[A-Za-z0-9._@~%-]*$/);
  });

  void test('is injective for arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (u1, k1, u2, k2) => {
        fc.pre(u1 !== u2 || k1 !== k2);
        return bucketIdOf(u1, k1) !== bucketIdOf(u2, k2);
      }),
      { numRuns: 2000 },
    );
    // Prefix/split ambiguity specifically: the same concatenation split differently.
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(20), (s, cut) => {
        const i = Math.min(cut, s.length);
        const j = Math.min(cut + 1, s.length);
        fc.pre(i !== j);
        return bucketIdOf(s.slice(0, i), s.slice(i)) !== bucketIdOf(s.slice(0, j), s.slice(j));
      }),
    );
  });
});
