// Traces as the core sees them: spans started and ended around requests,
// tool calls, tool runs and store operations, through this small interface.
// The process has one tracing at a time, installed at start (open-tracing.ts);
// until then, and whenever OpenTelemetry is not configured, it is the no-op
// one: a constant span, no context work, nothing allocated per call.

export type SpanValue = string | number | boolean;

/**
 * A span's role: `server` for a request that came in, `internal` for work
 * inside one, `entry` for a call that is a server span only when nothing
 * local encloses it (stdio) or its caller named its own trace (`_meta`).
 */
export type SpanRole = 'server' | 'internal' | 'entry';

/** W3C trace context as a caller sent it (HTTP headers, or `_meta` in an MCP request). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

export interface SpanStart {
  role?: SpanRole;
  /** The caller's context: when it holds a valid traceparent, the span continues that trace instead of the active span's. */
  remote?: TraceCarrier;
  attributes?: Readonly<Record<string, SpanValue>>;
}

export interface TraceSpan {
  /** False for the no-op span: attributes that cost something to compute can be skipped. */
  readonly recording: boolean;
  set(key: string, value: SpanValue): void;
  /** Marks the span failed, with a short reason (never a param or variable value). */
  fail(reason: string): void;
  end(): void;
}

export interface Tracing {
  readonly enabled: boolean;
  /** A new span, child of the active span (or of `remote` when valid). Not made active. */
  start(name: string, o?: SpanStart): TraceSpan;
  /** Runs fn with `span` active: spans started in it, and in what it awaits, are its children. */
  activate<T>(span: TraceSpan, fn: () => T): T;
  /** Exports every ended span now. */
  flush(): Promise<void>;
}

export const NO_SPAN: TraceSpan = {
  recording: false,
  set: () => undefined,
  fail: () => undefined,
  end: () => undefined,
};

export const NO_TRACING: Tracing = {
  enabled: false,
  start: () => NO_SPAN,
  activate: (_span, fn) => fn(),
  flush: () => Promise.resolve(),
};

let current: Tracing = NO_TRACING;

/** The process's tracing (the no-op one unless open-tracing.ts installed another). */
export function tracing(): Tracing {
  return current;
}

/** Installs the process's tracing; returns the one it replaces. */
export function installTracing(t: Tracing): Tracing {
  const before = current;
  current = t;
  return before;
}

/**
 * Runs fn inside a new active span that ends when fn settles (failed when it
 * throws). With tracing off it is fn itself: no span, no closure.
 */
export function inSpan<T>(name: string, o: SpanStart | undefined, fn: (span: TraceSpan) => Promise<T>): Promise<T> {
  const t = current;
  if (!t.enabled) return fn(NO_SPAN);
  return runInSpan(t, t.start(name, o), fn);
}

async function runInSpan<T>(t: Tracing, span: TraceSpan, fn: (span: TraceSpan) => Promise<T>): Promise<T> {
  try {
    return await t.activate(span, () => fn(span));
  } catch (e) {
    span.fail(e instanceof Error ? e.name : 'error');
    throw e;
  } finally {
    span.end();
  }
}
