import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { describeValue, formatAgo, formatExpiresIn, parseValueInput, shortKey, valueToInput } from '../../../src/extension/value-format';
import { validateVariableName } from '../../../src/core/session/variable-names';

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

  void test('the value box reads JSON, and says the type of scalars that are not strings', () => {
    assert.deepEqual(parseValueInput('"1000"'), { value: '1000' });
    assert.deepEqual(parseValueInput(' [1, "a"] '), { value: [1, 'a'] });
    assert.deepEqual(parseValueInput('{"k": {"n": 2}}'), { value: { k: { n: 2 } } });
    assert.deepEqual(parseValueInput('"10.0.0.5"'), { value: '10.0.0.5' });
    const n = parseValueInput('1000');
    assert.equal(n.value, 1000);
    assert.equal(n.note?.severity, 'info');
    assert.match(n.note?.message ?? '', /the number 1000; in double quotes it is text/);
    assert.equal(parseValueInput('true').value, true);
    assert.match(parseValueInput('true').note?.message ?? '', /the boolean true/);
    assert.equal(parseValueInput('null').value, null);
    for (const v of ['x', 3, true, null, [1], { a: [2] }]) assert.deepEqual(parseValueInput(valueToInput(v)).value, v);
  });

  void test('text that is not JSON is stored as text on Enter, and the box says so first (a warning, not an error)', () => {
    for (const text of ['tru', 'nul', 'True', '1O00', '10.0.0.5', 'hello world', 'NaN', "'abc'"]) {
      const r = parseValueInput(text);
      assert.equal(r.value, text, `${text} is not stored as its text`);
      assert.equal(r.note?.severity, 'warning', `${text}: no warning`);
      assert.ok(r.note?.message.includes(`Enter stores it as the text ${JSON.stringify(text)}`), `${text}: ${r.note?.message}`);
    }
    // Surrounding blanks are not part of the text.
    assert.equal(parseValueInput('  hello  ').value, 'hello');
    // What looks like JSON says why it is not, with a line and column where V8 gives a position.
    const list = parseValueInput('[1, 2');
    assert.equal(list.value, '[1, 2');
    assert.match(list.note?.message ?? '', /^Not JSON \(.+\): Enter stores it as the text/);
    assert.match(parseValueInput('[1 2]').note?.message ?? '', /line 1, column 4/);
    assert.match(parseValueInput("'abc'").note?.message ?? '', /Not JSON \(Unexpected token/);
    // Long text is shortened in the note, never in the value.
    const long = 'x'.repeat(300);
    assert.equal(parseValueInput(long).value, long);
    assert.ok((parseValueInput(long).note?.message.length ?? 0) < 150);
    const empty = parseValueInput('   ');
    assert.equal(empty.value, '');
    assert.match(empty.note?.message ?? '', /empty text/);
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
