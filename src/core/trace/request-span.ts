// The span of one HTTP request to /mcp: a server span that continues the
// caller's `traceparent` header, active while the request is handled (so
// the MCP calls it carries nest under it) and ended when its response
// closes, which for a stream is after the last event. Probes (/healthz,
// /readyz) get none. What it records: method, path, status, the MCP method
// and revision; never a header value, token, session id or param.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { Principal } from '../identity';
import { headerCarrier, principalKind } from './trace-context';
import { NO_SPAN, tracing, type TraceSpan } from './tracing';

export function traceHttpRequest(req: IncomingMessage, res: ServerResponse, handle: (span: TraceSpan) => Promise<void>): Promise<void> {
  const t = tracing();
  if (!t.enabled || (req.url ?? '/').split('?')[0] !== '/mcp') return handle(NO_SPAN);
  const method = req.method ?? 'GET';
  const span = t.start(`${method} /mcp`, {
    role: 'server',
    ...remoteOf(req),
    attributes: { 'http.request.method': method, 'url.path': '/mcp' },
  });
  res.once('close', () => {
    span.set('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.fail(`HTTP ${res.statusCode}`);
    span.end();
  });
  return t.activate(span, () => handle(span));
}

/** Names the caller's kind and the MCP method and revision of a request's body on its span. */
export function describeMcpRequest(span: TraceSpan, req: IncomingMessage, who: Principal, body: unknown, modern: boolean): void {
  if (!span.recording) return;
  span.set('mcc.principal.kind', principalKind(who));
  const message = Array.isArray(body) ? undefined : (body as { method?: unknown; params?: { _meta?: Record<string, unknown>; protocolVersion?: unknown } } | undefined);
  const name = Array.isArray(body) ? 'batch' : typeof message?.method === 'string' ? message.method : undefined;
  if (name !== undefined) span.set('mcp.method.name', name.slice(0, 100));
  const header = req.headers['mcp-protocol-version'];
  const revision = typeof header === 'string' ? header : (message?.params?._meta?.[PROTOCOL_VERSION_META_KEY] ?? message?.params?.protocolVersion);
  if (typeof revision === 'string') span.set('mcp.protocol.version', revision.slice(0, 20));
  span.set('mcc.mcp.modern', modern);
}

function remoteOf(req: IncomingMessage): { remote?: ReturnType<typeof headerCarrier> } {
  const remote = headerCarrier(req.headers);
  return remote ? { remote } : {};
}
