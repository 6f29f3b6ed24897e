import { test } from 'node:test';
import assert from 'node:assert/strict';
import { substituteEnv, substituteString } from '../../../src/core/catalog/substitute';

const env = { A: 'alpha', B_2: 'beta', EMPTY: '', MCC_CTX_USER: 'forged' };

void test('both spellings, unset left as written, empty value substituted', () => {
  assert.equal(substituteString('$A-${B_2}/$EMPTY|$NOPE|${NOPE}|$|$1|${A', env), 'alpha-beta/|$NOPE|${NOPE}|$|$1|${A');
  assert.equal(substituteString('$Ax', env), '$Ax', 'the longest name is the variable');
});

void test('template regions are never touched', () => {
  assert.equal(substituteString('$A {{ "$A" | quote }} {% if x %}$A{% endif %} {# $A #} ${A}', env), 'alpha {{ "$A" | quote }} {% if x %}alpha{% endif %} {# $A #} alpha');
});

void test('MCC_CTX* is never substituted at load', () => {
  assert.equal(substituteString('$MCC_CTX_USER ${MCC_CTX}', env), '$MCC_CTX_USER ${MCC_CTX}');
});

void test('the owner token (MCC_TOKEN) is never substituted into a catalog', () => {
  assert.equal(substituteString('Bearer ${MCC_TOKEN} $MCC_TOKEN', { MCC_TOKEN: 'owner-token-0123456789' }), 'Bearer ${MCC_TOKEN} $MCC_TOKEN');
});

void test('every string value of a tree, keys and other types untouched, input not mutated', () => {
  const input = { $A: ['$A', 1, true, null, { k: '${B_2}' }], n: 3 };
  assert.deepEqual(substituteEnv(input, env), { $A: ['alpha', 1, true, null, { k: 'beta' }], n: 3 });
  assert.equal(input.$A[0], '$A');
});

void test('what has nothing to substitute is shared, not copied; a changed branch is a copy', () => {
  const same = { tools: [{ name: 'a', env: { X: '1' } }], n: 1 };
  assert.equal(substituteEnv(same, env), same);
  const shared = { K: '$A' };
  const plain = { name: 'p' };
  const input = { one: shared, two: shared, plain, list: [plain, '$B_2'] };
  const out = substituteEnv(input, env) as typeof input;
  assert.deepEqual(out, { one: { K: 'alpha' }, two: { K: 'alpha' }, plain: { name: 'p' }, list: [{ name: 'p' }, 'beta'] });
  assert.notEqual(out, input);
  assert.notEqual(out.one, shared);
  assert.equal(out.plain, plain);
  assert.equal(out.list[0], plain);
  assert.deepEqual(shared, { K: '$A' }, 'an aliased mapping is substituted once per use, never in place');
});
