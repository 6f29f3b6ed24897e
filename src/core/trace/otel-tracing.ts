// The OpenTelemetry tracing: the official SDK's tracer provider, a batch
// span processor and the OTLP/HTTP exporter (JSON), which reads the
// standard OTEL_EXPORTER_OTLP_* variables itself. Built into a file of its
// own (dist/otel-tracing.js) and loaded only when an OTLP endpoint is set,
// so a server without one never reads the SDK.
//
// Everything is this instance's own (provider, context manager,
// propagator): nothing is registered in the API's globals, which an editor's
// extension host shares with every other extension.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, defaultTextMapGetter, type Context, type Link, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { SpanStart, SpanValue, TraceSpan, Tracing } from './tracing';

export interface OtelTracingOptions {
  env: NodeJS.ProcessEnv;
  /** The server's version, as service.version. */
  version: string;
  /** Another exporter (tests); default: OTLP/HTTP as the environment configures it. */
  exporter?: SpanExporter;
}

// Spans leave at most this long after they end (OTEL_BSP_SCHEDULE_DELAY
// changes it): short, so a trace shows while the call is fresh in mind.
const DEFAULT_DELAY_MS = 500;
// A stop waits at most this long for the last spans to leave.
const FLUSH_WAIT_MS = 3000;

export class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly contexts = new AsyncLocalStorageContextManager();
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(o: OtelTracingOptions) {
    const delay = Number(o.env.OTEL_BSP_SCHEDULE_DELAY?.trim() || NaN);
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over ours (the detector reads the process's environment).
    const service = o.env.OTEL_SERVICE_NAME?.trim() || 'mcc';
    const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: service, [ATTR_SERVICE_VERSION]: o.version }).merge(detectResources({ detectors: [envDetector] }));
    this.provider = new TracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor({ exporter: o.exporter ?? new OTLPTraceExporter(), scheduledDelayMillis: Number.isFinite(delay) && delay >= 0 ? delay : DEFAULT_DELAY_MS })],
    });
    this.tracer = this.provider.getTracer('mcc', o.version);
    this.contexts.enable();
  }

  start(name: string, o: SpanStart = {}): TraceSpan {
    const active = this.contexts.active();
    const remote = o.remote ? this.propagator.extract(ROOT_CONTEXT, o.remote, defaultTextMapGetter) : undefined;
    const parent = remote && trace.getSpanContext(remote) ? remote : active;
    // A call that names its own trace still points at the request it came in.
    const links = parent !== active ? linkTo(active) : undefined;
    const entry = o.role === 'entry' && (parent !== active || !trace.getSpanContext(active));
    const kind = o.role === 'server' || entry ? SpanKind.SERVER : SpanKind.INTERNAL;
    return new OtelSpan(this.tracer.startSpan(name, { kind, ...(o.attributes ? { attributes: o.attributes } : {}), ...(links ? { links } : {}) }, parent));
  }

  activate<T>(span: TraceSpan, fn: () => T): T {
    if (!(span instanceof OtelSpan)) return fn();
    return this.contexts.with(trace.setSpan(this.contexts.active(), span.inner), fn);
  }

  async flush(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_WAIT_MS)));
    try {
      // An export that fails loses its spans, never the stop.
      await Promise.race([this.provider.forceFlush().catch(() => undefined), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Flushes, then stops the exporter and the context manager (tests; a server only flushes). */
  async shutdown(): Promise<void> {
    await this.flush();
    await this.provider.shutdown();
    this.contexts.disable();
  }
}

class OtelSpan implements TraceSpan {
  readonly recording: boolean;

  constructor(readonly inner: Span) {
    this.recording = inner.isRecording();
  }

  set(key: string, value: SpanValue): void {
    this.inner.setAttribute(key, value);
  }

  fail(reason: string): void {
    this.inner.setStatus({ code: SpanStatusCode.ERROR, message: reason });
  }

  end(): void {
    this.inner.end();
  }
}

function linkTo(ctx: Context): Link[] | undefined {
  const span = trace.getSpanContext(ctx);
  return span ? [{ context: span }] : undefined;
}
