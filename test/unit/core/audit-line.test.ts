// Log lines that cannot be forged: every field from outside is escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAuditLine } from '../../../src/core/call/audit-entry';
import { boundText, escapeControl } from '../../../src/core/log-text';

test('escapeControl writes C0, DEL, C1 and line separators as escapes', () => {
  assert.equal(escapeControl('a\nb\rc\td\x1b[31me\x00f\x7fg\x85h\u2028i'), 'a\\nb\\rc\\td\\x1b[31me\\x00f\\x7fg\\x85h\\u2028i');
  assert.equal(escapeControl('plain ünïcödé ✓'), 'plain ünïcödé ✓');
});

test('boundText cuts with a marker and never splits a surrogate pair', () => {
  assert.equal(boundText('abc', 3), 'abc');
  assert.equal(boundText('abcdef', 4), 'abc…');
  assert.equal(boundText('ab😀cd', 4), 'ab…');
});

test('an audit line is one line whatever the key, params, session key, client or error hold', () => {
  const line = formatAuditLine({
    at: 0,
    user: 'eve\nINFO call owner',
    bucketKey: 'k\r\nforged',
    toolKey: 'x\n2024-01-01T00:00:00.000Z info  call owner s ops.deploy {} -> 0 in 1 ms',
    params: { 'a\nb': 'c\u001b[2Jd\u0085e' },
    durationMs: 3,
    code: 'error',
    error: "Unknown tool 'x\nforged'",
    client: 'client\nname',
  });
  assert.equal(line.split(/[\n\r\u0085\u2028\u2029]/).length, 1, line);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f]/);
  assert.match(line, /^call eve\\nINFO call owner bucket=k\\r\\nforged x\\n2024/);
  assert.match(line, /\{"a\\nb":"c\\u001b\[2Jd\\x85e"\}/);
  assert.match(line, / -> error \(Unknown tool 'x\\nforged'\) in 3 ms client="client\\nname"$/);
});

test('params are cut at 500 characters; a value JSON cannot hold does not throw', () => {
  const long = formatAuditLine({ at: 0, user: 'u', bucketKey: 's', toolKey: 't', params: { p: 'x'.repeat(5000) }, durationMs: 1, code: 0 });
  assert.ok(long.length < 600, String(long.length));
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.match(formatAuditLine({ at: 0, user: 'u', bucketKey: 's', toolKey: 't', params: cyclic, durationMs: 1, code: 0 }), /\[not loggable: /);
});
