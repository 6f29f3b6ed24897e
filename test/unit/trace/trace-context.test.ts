// Where a caller's trace context is read from (headers, `_meta`), which
// traceparent values count, and when the environment turns traces on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headerCarrier, metaCarrier, parseTraceparent, principalKind } from '../../../src/core/trace/trace-context';
import { tracesWanted } from '../../../src/core/trace/open-tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const VALID = `00-${TRACE}-${SPAN}-01`;

test('a valid traceparent gives its trace id, parent id and sampled flag', () => {
  assert.deepEqual(parseTraceparent(VALID), { traceId: TRACE, spanId: SPAN, sampled: true });
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-00`), { traceId: TRACE, spanId: SPAN, sampled: false });
  assert.deepEqual(parseTraceparent(` ${VALID} `), { traceId: TRACE, spanId: SPAN, sampled: true }, 'surrounding spaces are allowed');
  // A later version may carry more fields; only the first four are read.
  assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-01-extra`)?.traceId, TRACE);
});

test('invalid traceparent values are ignored', () => {
  const bad: unknown[] = [
    undefined,
    null,
    42,
    '',
    'garbage',
    `00-${'0'.repeat(32)}-${SPAN}-01`, // all-zero trace id
    `00-${TRACE}-${'0'.repeat(16)}-01`, // all-zero parent id
    `ff-${TRACE}-${SPAN}-01`, // version ff is invalid
    `00-${TRACE.toUpperCase()}-${SPAN}-01`, // upper-case hex
    `00-${TRACE}-${SPAN}-01-extra`, // version 00 has exactly four fields
    `00-${TRACE.slice(1)}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}`,
    [VALID],
  ];
  for (const v of bad) assert.equal(parseTraceparent(v), undefined, JSON.stringify(v));
});

test('the headers carry traceparent and tracestate; a bad traceparent drops both', () => {
  assert.deepEqual(headerCarrier({ traceparent: VALID, tracestate: 'a=1,b=2' }), { traceparent: VALID, tracestate: 'a=1,b=2' });
  assert.deepEqual(headerCarrier({ traceparent: VALID }), { traceparent: VALID });
  assert.equal(headerCarrier({ tracestate: 'a=1' }), undefined);
  assert.equal(headerCarrier({ traceparent: 'nope', tracestate: 'a=1' }), undefined);
  assert.equal(headerCarrier({}), undefined);
});

test('_meta carries the same keys; anything else in it is not read', () => {
  assert.deepEqual(metaCarrier({ traceparent: VALID, tracestate: 'x=y', progressToken: 1 }), { traceparent: VALID, tracestate: 'x=y' });
  assert.deepEqual(metaCarrier({ traceparent: VALID, tracestate: 7 }), { traceparent: VALID }, 'a tracestate that is not a string is dropped');
  assert.deepEqual(metaCarrier({ traceparent: VALID, tracestate: 'k=v,'.repeat(3000) }), { traceparent: VALID }, 'an oversized tracestate is dropped');
  for (const m of [undefined, null, 'x', { traceparent: 'bad' }, { traceparent: `00-${TRACE}-${SPAN}-01-x` }, { 'io.modelcontextprotocol/traceparent': VALID }]) {
    assert.equal(metaCarrier(m), undefined, JSON.stringify(m));
  }
});

test('traces are on only with an OTLP endpoint, and not when disabled', () => {
  assert.equal(tracesWanted({}), false);
  assert.equal(tracesWanted({ OTEL_SERVICE_NAME: 'x' }), false);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), false);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_SDK_DISABLED: 'TRUE' }), false);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_SDK_DISABLED: 'false' }), true);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_TRACES_EXPORTER: 'none' }), false);
});

test('a span names the kind of caller, never the user', () => {
  const p = { user: 'alice', email: 'a@x', groups: ['dev'], grants: [] };
  assert.equal(principalKind(p), 'user');
  assert.equal(principalKind({ ...p, groups: ['admin'] }), 'admin');
  assert.equal(principalKind({ ...p, anonymous: true }), 'anonymous');
});
