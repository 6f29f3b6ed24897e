// The OpenTelemetry tracing with the SDK's in-memory exporter: parents
// (active span, a caller's context, an invalid one), span kinds, links, the
// no-op tracing's fast path and inSpan's failure status.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { OtelTracing } from '../../../src/core/trace/otel-tracing';
import { inSpan, installTracing, NO_SPAN, NO_TRACING, tracing } from '../../../src/core/trace/tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const REMOTE = { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'v=1' };

const exporter = new InMemorySpanExporter();
const otel = new OtelTracing({ env: { OTEL_SERVICE_NAME: 'mcc-unit' }, version: '9.9.9', exporter });
after(() => otel.shutdown());

async function finished(): Promise<ReadableSpan[]> {
  await otel.flush();
  const spans = exporter.getFinishedSpans();
  exporter.reset();
  return spans;
}

const named = (spans: ReadableSpan[], name: string): ReadableSpan => {
  const s = spans.find((x) => x.name === name);
  assert.ok(s, `span ${name}`);
  return s;
};

test('a caller context parents the span; the spans inside follow it across awaits', async () => {
  installTracing(otel);
  try {
    await inSpan('outer', { role: 'server', remote: REMOTE }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      await inSpan('inner', undefined, () => Promise.resolve());
      tracing().start('detached').end();
    });
  } finally {
    installTracing(NO_TRACING);
  }
  const spans = await finished();
  const outer = named(spans, 'outer');
  assert.equal(outer.spanContext().traceId, TRACE);
  assert.equal(outer.parentSpanContext?.spanId, SPAN);
  assert.equal(outer.parentSpanContext?.isRemote, true);
  assert.equal(outer.spanContext().traceState?.get('v'), '1');
  assert.equal(outer.kind, 1 /* SERVER */);
  assert.equal(outer.resource.attributes['service.name'], 'mcc-unit', 'OTEL_SERVICE_NAME wins');
  assert.equal(outer.resource.attributes['service.version'], '9.9.9');
  for (const name of ['inner', 'detached']) {
    assert.equal(named(spans, name).parentSpanContext?.spanId, outer.spanContext().spanId, name);
    assert.equal(named(spans, name).kind, 0 /* INTERNAL */);
  }
});

test('an entry span is a server span at the top or with a caller context (linked to the enclosing one), internal below a local span', async () => {
  const top = otel.start('top', { role: 'entry' });
  top.end();
  const request = otel.start('request', { role: 'server' });
  otel.activate(request, () => {
    otel.start('nested', { role: 'entry' }).end();
    otel.start('own-trace', { role: 'entry', remote: REMOTE }).end();
    otel.start('bad-context', { role: 'entry', remote: { traceparent: 'not-one' } }).end();
  });
  request.end();
  const spans = await finished();
  const req = named(spans, 'request');
  assert.equal(named(spans, 'top').kind, 1);
  assert.equal(named(spans, 'nested').kind, 0);
  assert.equal(named(spans, 'nested').parentSpanContext?.spanId, req.spanContext().spanId);
  const own = named(spans, 'own-trace');
  assert.equal(own.kind, 1);
  assert.equal(own.spanContext().traceId, TRACE);
  assert.deepEqual(own.links.map((l) => l.context.spanId), [req.spanContext().spanId]);
  // An invalid context is ignored: the active span parents it, as if none was sent.
  assert.equal(named(spans, 'bad-context').parentSpanContext?.spanId, req.spanContext().spanId);
  assert.equal(named(spans, 'bad-context').links.length, 0);
});

test('inSpan marks a throw as an error with the error class only, and rethrows it', async () => {
  installTracing(otel);
  try {
    await assert.rejects(
      inSpan('fails', undefined, () => Promise.reject(new TypeError('secret value 42'))),
      /secret value 42/,
    );
  } finally {
    installTracing(NO_TRACING);
  }
  const s = named(await finished(), 'fails');
  assert.equal(s.status.code, 2);
  assert.equal(s.status.message, 'TypeError');
});

test('with tracing off nothing is started: fn gets the constant no-op span', async () => {
  assert.equal(tracing(), NO_TRACING);
  let seen: unknown;
  assert.equal(await inSpan('off', { remote: REMOTE }, (span) => ((seen = span), Promise.resolve(7))), 7);
  assert.equal(seen, NO_SPAN);
  assert.equal(NO_TRACING.start('x'), NO_SPAN);
  assert.equal((await finished()).length, 0);
});
