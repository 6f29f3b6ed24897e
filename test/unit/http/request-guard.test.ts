import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedHosts, allowedOrigins } from '../../../src/core/http/request-guard';
import { sessionKeyError } from '../../../src/core/server/bucket-key';

test('loopback binds accept the loopback names with the port only', () => {
  const h = allowedHosts('127.0.0.1', 4000);
  for (const ok of ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000']) assert.ok(h.has(ok), ok);
  for (const bad of ['127.0.0.1', 'localhost:4001', 'evil.com:4000', '127.0.0.2:4000']) assert.ok(!h.has(bad), bad);
});

test('origins are http on our port', () => {
  const o = allowedOrigins('127.0.0.1', 4000);
  assert.ok(o.has('http://127.0.0.1:4000') && o.has('http://localhost:4000'));
  assert.ok(!o.has('https://localhost:4000') && !o.has('http://localhost:4001') && !o.has('null'));
});

test('session keys are short printable tokens', () => {
  assert.equal(sessionKeyError(undefined), undefined);
  assert.equal(sessionKeyError('ws-1234.abc:def_9'), undefined);
  for (const bad of ['', 'a b', 'a/b', 'x'.repeat(129), ['a', 'b']]) assert.ok(sessionKeyError(bad), String(bad));
});
