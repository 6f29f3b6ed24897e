import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RESERVED_KEYS } from '../../../src/core/identity';
import { isValidVariableName, validateVariableName } from '../../../src/core/session/variable-names';

void describe('validateVariableName', () => {
  void test('accepts slugs', () => {
    for (const name of ['target', 'budget', 'a', '_', '_x', 'x1', 'snake_case_9', '__proto__', 'constructor', 'a'.repeat(200)]) {
      assert.equal(validateVariableName(name), undefined, name);
      assert.equal(isValidVariableName(name), true, name);
    }
  });

  void test('rejects a leading digit, saying so and spelling out the rule', () => {
    const msg = validateVariableName('1abc');
    assert.match(msg ?? '', /starts with a digit/);
    assert.match(msg ?? '', /\^\[a-z_\]\[a-z0-9_\]\*\$/);
    assert.match(msg ?? '', /lowercase letters, digits and underscores/);
  });

  void test('rejects bad characters, naming them', () => {
    const cases: Array<[string, RegExp]> = [
      ['Target', /"T"/],
      ['my-var', /"-"/],
      ['a b', /" "/],
      ['a.b', /"\."/],
      ['é', /"é"/],
      ['x\n', /"\\n"/],
      ['MCC_CTX', /"M"/],
    ];
    for (const [name, bad] of cases) {
      const msg = validateVariableName(name);
      assert.ok(msg, name);
      assert.match(msg, bad, name);
      assert.match(msg, /Invalid variable name/);
      assert.equal(isValidVariableName(name), false);
    }
  });

  void test('rejects empty and non-string names', () => {
    assert.match(validateVariableName('') ?? '', /empty/);
    assert.match(validateVariableName(3) ?? '', /must be a string, got number/);
    assert.match(validateVariableName(null) ?? '', /got null/);
    assert.match(validateVariableName(undefined) ?? '', /got undefined/);
    assert.match(validateVariableName(['a']) ?? '', /got an array/);
  });

  void test('refuses every reserved identity key as read-only', () => {
    assert.deepEqual([...RESERVED_KEYS].sort(), ['email', 'groups', 'tools', 'user']);
    for (const key of RESERVED_KEYS) {
      const msg = validateVariableName(key);
      assert.match(msg ?? '', /reserved identity key and is read-only/, key);
      assert.ok(msg?.includes(`'${key}'`));
    }
  });
});
