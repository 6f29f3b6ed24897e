import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedHosts, allowedOrigins, publicHostError } from '../../../src/core/http/request-guard';
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

test('a public name (--public-host) is accepted in Host exactly as given, and as an https or http origin', () => {
  const h = allowedHosts('127.0.0.1', 4000, ['MCC.example.com']);
  for (const ok of ['mcc.example.com', '127.0.0.1:4000']) assert.ok(h.has(ok), ok);
  for (const bad of ['mcc.example.com:4000', 'example.com', 'evil.com']) assert.ok(!h.has(bad), bad);
  const o = allowedOrigins('127.0.0.1', 4000, ['mcc.example.com']);
  assert.ok(o.has('https://mcc.example.com') && o.has('http://mcc.example.com') && o.has('http://127.0.0.1:4000'));
  assert.ok(!o.has('https://evil.com') && !o.has('https://mcc.example.com:4000'));
});

test('a public host is a name or address with an optional port, nothing else', () => {
  for (const ok of ['mcc.example.com', 'mcc.example.com:8443', '127.0.0.1', '[::1]:443', 'localhost']) assert.equal(publicHostError(ok), undefined, ok);
  for (const bad of ['', 'https://mcc.example.com', 'mcc.example.com/mcp', 'a b', '-x.com', 'x:port']) assert.match(publicHostError(bad) ?? '', /is not a host name/, bad);
});
