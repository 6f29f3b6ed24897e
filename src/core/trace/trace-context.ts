// Where a caller's W3C trace context comes from: the `traceparent` and
// `tracestate` HTTP headers, or the same keys in an MCP request's `_meta`
// (the 2026-07-28 revision's way, and the only one over stdio). A malformed
// traceparent is ignored, as the W3C spec asks, so the span then continues
// the active trace (or starts one).
import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../identity';
import type { TraceCarrier } from './tracing';

export interface TraceParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
// A tracestate longer than this is dropped rather than carried (W3C: at most 32 members of 256 chars).
const MAX_TRACESTATE = 8192;

/** The parts of a valid traceparent, or undefined (unknown version ff, all-zero ids, bad shape). */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  // Version 00 has exactly four fields; a later version may add more.
  if (version === '00' && rest !== undefined) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** The trace context of an HTTP request's headers, when its traceparent is valid. */
export function headerCarrier(headers: IncomingHttpHeaders): TraceCarrier | undefined {
  return carrier(first(headers.traceparent), first(headers.tracestate));
}

/** The trace context in an MCP request's `_meta`, when its traceparent is valid. */
export function metaCarrier(meta: unknown): TraceCarrier | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const m = meta as Record<string, unknown>;
  return carrier(m.traceparent, m.tracestate);
}

function carrier(traceparent: unknown, tracestate: unknown): TraceCarrier | undefined {
  if (!parseTraceparent(traceparent)) return undefined;
  const state = typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE ? { tracestate } : {};
  return { traceparent: (traceparent as string).trim(), ...state };
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** What a span may say of a caller: its kind, never its name. */
export function principalKind(p: Principal): 'anonymous' | 'admin' | 'user' {
  return p.anonymous ? 'anonymous' : p.groups.includes('admin') ? 'admin' : 'user';
}
