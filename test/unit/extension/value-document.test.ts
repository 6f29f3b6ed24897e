// Lists and objects open as JSON documents; saving one stores it, and
// invalid JSON is refused with where it went wrong.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseSavedText, TextStamps, variableFromQuery, variableText, variableUriParts } from '../../../src/extension/value-document';

void describe('session values as documents', () => {
  void test('a variable round-trips through its URI, whatever its user and session key', () => {
    const ref = { user: 'ann o\'neil', sessionKey: 'vscode-01&key=x?y#z', name: 'hosts' };
    const parts = variableUriParts(ref);
    assert.equal(parts.path, `/${encodeURIComponent(ref.user)}/hosts.json`);
    assert.deepEqual(variableFromQuery(parts.query), ref);
    assert.equal(variableFromQuery('user=a&name=b'), undefined);
  });

  void test('the text is formatted JSON; a save parses it back', () => {
    const value = { hosts: ['alpha', 'beta'], port: 22 };
    const text = variableText(value);
    assert.equal(text, '{\n  "hosts": [\n    "alpha",\n    "beta"\n  ],\n  "port": 22\n}\n');
    assert.deepEqual(parseSavedText('cfg', text), { ok: true, value });
    assert.deepEqual(parseSavedText('cfg', '[1,2]'), { ok: true, value: [1, 2] });
    assert.deepEqual(parseSavedText('cfg', '"now a string"'), { ok: true, value: 'now a string' });
  });

  void test('invalid JSON is refused, saying where; an empty document too', () => {
    const bad = parseSavedText('cfg', '{\n  "hosts": ["alpha"\n  "port": 22\n}\n');
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.match(bad.error, /^'cfg' was not saved: the JSON is invalid \(.+ at line 3, column 3\)\. Fix it and save again\.$/);
    }
    const empty = parseSavedText('cfg', '  \n');
    assert.equal(empty.ok, false);
    if (!empty.ok) assert.match(empty.error, /empty/);
  });

  void test('a document keeps its time while its text is unchanged, and gets a newer one when it changes', () => {
    const s = new TextStamps();
    const t1 = s.stamp('u', 'a', 1000);
    assert.equal(s.stamp('u', 'a', 5000), t1);
    const t2 = s.stamp('u', 'b', 900); // a clock that went back still moves forward
    assert.ok(t2 > t1);
    assert.equal(s.stamp('u', 'b', 9000), t2);
    s.forget('u');
    assert.equal(s.stamp('u', 'b', 9000), 9000);
  });
});
