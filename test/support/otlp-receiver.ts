// A small OTLP/HTTP receiver for the tests: a real HTTP server on a free
// loopback port that accepts trace exports as OTLP/JSON (what the
// @opentelemetry exporter sends) and keeps every span it is sent, flattened.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code?: number; message?: string };
  service: unknown;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request that reached it, whatever its path. */
  requests: Array<{ method: string; path: string; contentType: string }>;
  /** Resolves once a span matches, or rejects after `ms`. */
  waitFor(match: (s: ReceivedSpan) => boolean, ms: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: OtlpValue }>;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: Array<{ resource?: { attributes?: Array<{ key: string; value: OtlpValue }> }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  let waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'] ?? '' });
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !(req.headers['content-type'] ?? '').startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      spans.push(...flatten(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    waitFor: (match, ms) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching span within ${ms} ms; got: ${spans.map((s) => s.name).join(', ')}`)), ms);
        const check = (): void => {
          const found = spans.find(match);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          } else waiters.push(check);
        };
        check();
      }),
    close: () => {
      waiters = [];
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function flatten(body: OtlpExport): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = attributesOf(rs.resource?.attributes)['service.name'];
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hexId(s.traceId),
          spanId: hexId(s.spanId),
          parentSpanId: s.parentSpanId ? hexId(s.parentSpanId) : '',
          name: s.name,
          kind: s.kind,
          attributes: attributesOf(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: hexId(l.traceId), spanId: hexId(l.spanId) })),
          status: s.status ?? {},
          service,
        });
      }
    }
  }
  return out;
}

function attributesOf(list: Array<{ key: string; value: OtlpValue }> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  return out;
}

// OTLP/JSON ids are hex; older exporters sent base64.
function hexId(id: string): string {
  return /^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

/** The chain of span ids from `span` up through the parents the receiver holds, then the first parent it does not. */
export function ancestry(spans: readonly ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain: string[] = [];
  let parent = span.parentSpanId;
  while (parent && !chain.includes(parent)) {
    chain.push(parent);
    parent = byId.get(parent)?.parentSpanId ?? '';
  }
  return chain;
}
