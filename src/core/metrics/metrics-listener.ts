// The metrics endpoint: a listener of its own, apart from the MCP port, so
// it can be opened to a Prometheus server (or kept on loopback) without
// opening the tools. GET /metrics answers the exposition text; every other
// path is 404. It takes no token: what it shows is counts by tool key,
// result and kind of caller, never a token, a param value or a bucket key
// (user names only when the operator asked for them).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../host';
import { hostForUrl } from '../http/request-guard';

export interface MetricsText {
  text(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsListener {
  /** http://HOST:PORT/metrics */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startMetricsListener(metrics: MetricsText, host: string, port: number, logger: Logger = silentLogger): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    answer(metrics, req, res).catch((e: unknown) => {
      logger.error(`metrics request failed: ${e instanceof Error ? e.message : String(e)}`);
      send(res, 500, 'internal server error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${hostForUrl(host)}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(metrics: MetricsText, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/metrics') return send(res, 404, 'not found: the metrics are at /metrics\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
  const body = await metrics.text();
  res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}
