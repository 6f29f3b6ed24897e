// Traces of a real `mcc serve` (the built dist/cli.js) sent to a real
// OTLP/HTTP receiver (test/support/otlp-receiver.ts): real SDK clients of
// both revisions and over stdio send their trace context in the
// `traceparent` header or in `_meta`, and the tool run's span reaches the
// receiver in the client's trace, below the client's span. The batch delay
// is set to a minute, so only the flush of a stop can deliver the spans.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ancestry, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { CLI, FIXTURES, connect, okText, startServe, tempDir } from './serve-process';

const TOKEN = 'traces-owner-token-0123456789';
const TOOLS = join(FIXTURES, 'tools.yaml');

interface ClientTrace {
  traceId: string;
  spanId: string;
  traceparent: string;
}

function clientTrace(): ClientTrace {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function otelEnv(r: OtlpReceiver): NodeJS.ProcessEnv {
  return { MCC_TOKEN: TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_SERVICE_NAME: undefined, OTEL_SDK_DISABLED: undefined };
}

const isRun = (key: string) => (s: ReceivedSpan) => s.name === `run ${key}`;

/** The run span of `key` in the client's trace, whose parents lead up to the client's span. */
function assertInClientTrace(spans: readonly ReceivedSpan[], key: string, client: ClientTrace): ReceivedSpan {
  const run = spans.find((s) => isRun(key)(s) && s.traceId === client.traceId);
  assert.ok(run, `a span of the run of ${key} in trace ${client.traceId}; got ${JSON.stringify(spans.map((s) => [s.name, s.traceId]))}`);
  assert.ok(ancestry(spans, run).includes(client.spanId), 'the run span descends from the client span');
  return run;
}

void describe('traces of mcc serve', { timeout: 90_000 }, () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  void test('2025-11-25 over HTTP: the traceparent header parents the request, the call, the run and the store operations', async () => {
    const client = clientTrace();
    const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')], otelEnv(receiver));
    const c = await connect(h, { sessionKey: 'traced' });
    const traced = await connectWithHeaders(h, { traceparent: client.traceparent, tracestate: 'mcc=test' });
    try {
      await okText(traced, 'set_session', { name: 'target', value: 'db-1' });
      assert.equal(await okText(traced, 'execute', { key: 'test.echo_args', params: { word: 'w' } }), 'w:2:s3cret');
      assert.equal((await traced.callTool({ name: 'execute', arguments: { key: 'test.fails' } })).isError, true);
      await okText(c, 'get_session', { name: 'target' });
    } finally {
      await traced.close();
      await c.close();
    }
    assert.equal(receiver.spans.filter((s) => s.traceId === client.traceId).length, 0, 'nothing is sent before the batch delay or a stop');
    assert.equal(await h.stop('SIGTERM'), 0);
    const run = assertInClientTrace(receiver.spans, 'test.echo_args', client);
    assert.equal(run.attributes['process.exit.code'], 0);
    assert.equal(run.attributes['mcc.tool.kind'], 'exec');
    assert.equal(typeof run.attributes['mcc.run.duration_ms'], 'number');
    assert.equal(run.service, 'mcc');
    const failed = assertInClientTrace(receiver.spans, 'test.fails', client);
    assert.equal(failed.attributes['process.exit.code'], 3);
    assert.equal(failed.status.code, 2, 'a failed run is an error span');
    const mine = receiver.spans.filter((s) => s.traceId === client.traceId);
    const call = mine.find((s) => s.name === 'tools/call execute' && s.spanId === run.parentSpanId);
    assert.equal(call?.attributes['mcc.tool.key'], 'test.echo_args');
    const request = mine.find((s) => s.spanId === call?.parentSpanId);
    assert.equal(request?.name, 'POST /mcp');
    assert.equal(request?.parentSpanId, client.spanId);
    assert.equal(request?.attributes['mcp.method.name'], 'tools/call');
    assert.ok(mine.some((s) => s.name === 'store update' && ancestry(mine, s).includes(client.spanId)), 'the set_session write is in the trace');
    // No value, token or user name in any attribute of any span.
    const everything = JSON.stringify(receiver.spans);
    for (const secret of [TOKEN, 'db-1', 's3cret', '"w"']) assert.ok(!everything.includes(secret), `no span holds ${secret}`);
  });

  void test('2026-07-28 over HTTP: a traceparent in _meta wins over the header for its call', async () => {
    const header = clientTrace();
    const meta = clientTrace();
    const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')], otelEnv(receiver));
    const c = new ModernClient({ name: 'traced-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await c.connect(new ModernHttp(new URL(h.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}`, traceparent: header.traceparent } } }));
    try {
      const r = await c.callTool({ name: 'execute', arguments: { key: 'test.echo_args', params: { word: 'm' } }, _meta: { traceparent: meta.traceparent } });
      assert.equal(r.isError, undefined);
    } finally {
      await c.close();
    }
    assert.equal(await h.stop('SIGTERM'), 0);
    const run = assertInClientTrace(receiver.spans, 'test.echo_args', meta);
    const call = receiver.spans.find((s) => s.spanId === run.parentSpanId);
    assert.equal(call?.parentSpanId, meta.spanId, 'the call continues the _meta trace');
    // It still points at the HTTP request it came in, which continues the header's trace.
    const request = receiver.spans.find((s) => s.name === 'POST /mcp' && s.traceId === header.traceId && s.attributes['mcp.method.name'] === 'tools/call');
    assert.ok(request, 'the request span is in the header trace');
    assert.deepEqual(call?.links, [{ traceId: header.traceId, spanId: request.spanId }]);
  });

  void test('--stateless: a request served without an MCP session continues the header trace too', async () => {
    const client = clientTrace();
    const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json'), '--stateless'], otelEnv(receiver));
    const c = await connectWithHeaders(h, { traceparent: client.traceparent, 'X-MCC-Session-Key': 'traced-stateless' });
    try {
      assert.equal(await okText(c, 'execute', { key: 'test.echo_args', params: { word: 'x' } }), 'x:2:s3cret');
    } finally {
      await c.close();
    }
    assert.equal(await h.stop('SIGTERM'), 0);
    assertInClientTrace(receiver.spans, 'test.echo_args', client);
  });

  void test('stdio: _meta carries the trace; the spans leave when the client goes away', async () => {
    const meta = clientTrace();
    const args = [CLI, 'serve', '--stdio', '--tools', TOOLS, '--state', join(tempDir(), 's.json')];
    const env = Object.fromEntries(Object.entries({ ...process.env, ...otelEnv(receiver) }).filter((e): e is [string, string] => e[1] !== undefined));
    const c = new ModernClient({ name: 'traced-stdio', version: '1.0.0' });
    await c.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' }));
    try {
      const r = await c.callTool({ name: 'execute', arguments: { key: 'test.echo_args', params: { word: 's' } }, _meta: { traceparent: meta.traceparent } });
      assert.equal(r.isError, undefined);
    } finally {
      await c.close();
    }
    // The server stops when its stdin closes, and flushes then.
    const run = await receiver.waitFor((s) => isRun('test.echo_args')(s) && s.traceId === meta.traceId, 20_000);
    const call = receiver.spans.find((s) => s.spanId === run.parentSpanId);
    assert.equal(call?.parentSpanId, meta.spanId);
    assert.equal(call?.kind, 2, 'over stdio the call is the server span');
  });

  void test('an invalid traceparent is ignored: the call starts a trace of its own', async () => {
    const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')], otelEnv(receiver));
    const bad = `00-${'0'.repeat(32)}-${randomBytes(8).toString('hex')}-01`;
    const c = await connectWithHeaders(h, { traceparent: bad });
    try {
      await okText(c, 'execute', { key: 'test.echo_args', params: { word: 'i' } });
    } finally {
      await c.close();
    }
    const before = receiver.spans.length;
    assert.equal(await h.stop('SIGTERM'), 0);
    const mine = receiver.spans.slice(before);
    const run = mine.find(isRun('test.echo_args'));
    assert.ok(run);
    assert.notEqual(run.traceId, '0'.repeat(32));
    const root = mine.find((s) => s.traceId === run.traceId && s.name === 'POST /mcp' && s.attributes['mcp.method.name'] === 'tools/call');
    assert.equal(root?.parentSpanId, '', 'the request span is a root');
  });

  void test('a receiver that is gone costs the spans, never a call or the stop', async () => {
    const gone = await startOtlpReceiver();
    await gone.close();
    const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')], { ...otelEnv(receiver), OTEL_EXPORTER_OTLP_ENDPOINT: gone.url, OTEL_BSP_SCHEDULE_DELAY: '0' });
    const c = await connectWithHeaders(h, { traceparent: clientTrace().traceparent });
    try {
      assert.equal(await okText(c, 'execute', { key: 'test.echo_args', params: { word: 'g' } }), 'g:2:s3cret');
      await okText(c, 'set_session', { name: 'target', value: 'kept' });
      assert.equal(await okText(c, 'get_session', { name: 'target' }), '"kept"');
    } finally {
      await c.close();
    }
    assert.equal(await h.stop('SIGTERM'), 0);
    assert.match(h.stderr(), /traces: OTLP\/HTTP to /);
    assert.doesNotMatch(h.stderr(), /Z error |shutdown failed/, 'no error is logged');
  });

  void test('without an endpoint, or with OTEL_SDK_DISABLED, nothing is sent', async () => {
    const count = receiver.requests.length;
    const disabled = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')], { ...otelEnv(receiver), OTEL_SDK_DISABLED: 'true' });
    const unset = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')], { MCC_TOKEN: TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined });
    for (const h of [disabled, unset]) {
      const c = await connectWithHeaders(h, { traceparent: clientTrace().traceparent });
      try {
        await okText(c, 'execute', { key: 'test.echo_args', params: { word: 'n' } });
      } finally {
        await c.close();
      }
      assert.equal(await h.stop('SIGTERM'), 0);
      assert.doesNotMatch(h.stderr(), /traces:/);
    }
    assert.equal(receiver.requests.length, count);
  });
});

/** A 2025-11-25 SDK client that sends these headers with every request. */
async function connectWithHeaders(h: { url: string; token: string }, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'traced', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { Authorization: `Bearer ${h.token}`, ...headers } } }));
  return client;
}
