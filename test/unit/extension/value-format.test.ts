import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { describeValue, formatAgo, formatExpiresIn, parseValueInput, shortKey, valueToInput } from '../../../src/extension/value-format';
import { validateVariableName } from '../../../src/core/session/names';

void describe('value formatting', () => {
  void test('values render by type', () => {
    assert.equal(describeValue('10.0.0.5'), '"10.0.0.5"');
    assert.equal(describeValue(1000), '1000');
    assert.equal(describeValue(false), 'false');
    assert.equal(describeValue(null), 'null');
    assert.equal(describeValue([]), '[]');
    assert.equal(describeValue([1]), '[1 item]');
    assert.equal(describeValue({ a: 1, b: 2 }), '{2 keys}');
    assert.ok(describeValue('x'.repeat(200)).length <= 80);
  });

  void test('the edit box takes JSON only: a string is quoted, and a typo is refused with how to enter text', () => {
    assert.deepEqual(parseValueInput('1000'), { ok: true, value: 1000 });
    assert.deepEqual(parseValueInput('"1000"'), { ok: true, value: '1000' });
    assert.deepEqual(parseValueInput(' [1, "a"] '), { ok: true, value: [1, 'a'] });
    assert.deepEqual(parseValueInput('null'), { ok: true, value: null });
    assert.deepEqual(parseValueInput('true'), { ok: true, value: true });
    assert.deepEqual(parseValueInput('"10.0.0.5"'), { ok: true, value: '10.0.0.5' });
    // Typos of JSON literals and bare words are not stored as strings.
    for (const typo of ['tru', 'nul', 'Null', 'True', '1O00', '10.0.0.5', 'hello world', 'NaN', '1e']) {
      const r = parseValueInput(typo);
      assert.equal(r.ok, false, `${typo} was accepted`);
      if (!r.ok) {
        assert.match(r.error, /Not valid JSON/);
        assert.ok(r.error.includes(`double quotes: ${JSON.stringify(typo)}`), `no quoting hint for ${typo}: ${r.error}`);
      }
    }
    const single = parseValueInput("'abc'");
    assert.equal(single.ok, false);
    if (!single.ok) assert.match(single.error, /double quotes: "abc"/);
    const empty = parseValueInput('   ');
    assert.equal(empty.ok, false);
    if (!empty.ok) assert.match(empty.error, /"text" \(strings in double quotes\)/);
    assert.equal(parseValueInput('').ok, false);
    assert.equal(parseValueInput('[1, 2').ok, false);
    assert.equal(parseValueInput('{"a": }').ok, false);
    for (const v of ['x', 3, true, null, [1], { a: [2] }]) assert.deepEqual(parseValueInput(valueToInput(v)), { ok: true, value: v });
  });

  void test('names are checked by the core rule the UI uses', () => {
    assert.equal(validateVariableName('target'), undefined);
    assert.match(validateVariableName('user')!, /reserved/);
    assert.match(validateVariableName('Bad-Name')!, /Invalid variable name/);
  });

  void test('times read as a person expects', () => {
    const now = 1_000_000_000;
    assert.equal(formatExpiresIn(now + 42_000, now), 'in 42s');
    assert.equal(formatExpiresIn(now + 3 * 3600_000 + 12 * 60_000, now), 'in 3h 12m');
    assert.equal(formatExpiresIn(now + 24 * 3600_000, now), 'in 24h');
    assert.equal(formatExpiresIn(now + 5 * 86400_000, now), 'in 5d');
    assert.equal(formatExpiresIn(now, now), 'expired');
    assert.equal(formatAgo(now - 1000, now), 'just now');
    assert.equal(formatAgo(now - 5 * 60_000, now), '5m ago');
    // The editor's keys (vscode-<24 hex>): the prefix goes, 8 characters of the random part stay.
    assert.equal(shortKey('vscode-0123456789abcdef01234567'), '01234567…');
    assert.notEqual(shortKey('vscode-aaaaaaaa11'), shortKey('vscode-bbbbbbbb11'));
    assert.equal(shortKey('vscode-abc'), 'abc');
    assert.equal(shortKey('vscode-'), 'vscode-');
    // Other clients' keys: their first 8 characters.
    assert.equal(shortKey('3f2a9c1e-77aa-4d1b-9e0f-2b6c1d0e9a11'), '3f2a9c1e…');
    assert.equal(shortKey('short'), 'short');
  });
});
