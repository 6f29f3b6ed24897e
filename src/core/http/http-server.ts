// The Streamable HTTP endpoint: loopback bind, bearer auth, Host/Origin
// checks, and stateful MCP sessions that belong to the principal who
// opened them.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import { type Logger, silentLogger } from '../host';
import { createServer } from '../server/create-server';
import type { HandlerExtra } from '../server/session-context';
import type { Authenticator } from './authenticator';
import { allowedHosts, allowedOrigins, hostForUrl } from './request-guard';
import { SESSION_KEY_HEADER, sessionKeyError } from './session-key';
import { serveStateless, statelessRefusal } from './stateless';

export interface HttpServerOptions {
  runtime: Runtime;
  authenticator: Authenticator;
  host?: string;
  port?: number;
  logger?: Logger;
  /** Largest request body accepted (default 4 MiB). */
  maxBodyBytes?: number;
  /** No server-side MCP sessions (stateless.ts): every request carries its token and X-MCC-Session-Key. */
  stateless?: boolean;
}

export interface McpHttpServer {
  url: string;
  host: string;
  port: number;
  /** Number of open MCP sessions. */
  sessionCount(): number;
  close(): Promise<void>;
}

interface Connection {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  principal: Principal;
}

export async function startHttpServer(opts: HttpServerOptions): Promise<McpHttpServer> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? silentLogger;
  const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const connections = new Map<string, Connection>();
  let hosts = new Set<string>();
  let origins = new Set<string>();

  const http: Server = createHttpServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      logger.error(`request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (!res.headersSent) sendError(res, 500, 'internal server error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!hosts.has(hostHeader)) return sendError(res, 403, `Host '${req.headers.host ?? ''}' is not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin.toLowerCase())) return sendError(res, 403, `Origin '${origin}' is not allowed`);
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return sendError(res, 404, 'not found: the MCP endpoint is /mcp');

    const auth = opts.authenticator.authenticate(req.headers.authorization);
    if (!auth.ok) {
      res.setHeader('WWW-Authenticate', `Bearer realm="mcc", error="invalid_token", error_description="${auth.reason}"`);
      return sendError(res, 401, `Unauthorized: ${auth.reason}`);
    }
    const keyProblem = sessionKeyError(req.headers[SESSION_KEY_HEADER]);
    if (keyProblem) return sendError(res, 400, keyProblem);
    const refusal = opts.stateless ? statelessRefusal(req.method, auth.principal, req.headers[SESSION_KEY_HEADER]) : undefined;
    if (refusal) {
      for (const [name, value] of Object.entries(refusal.headers ?? {})) res.setHeader(name, value);
      return sendError(res, refusal.status, refusal.message);
    }
    // All anonymous callers share one user name; a key they choose could be
    // guessed by another, so their buckets are keyed by the MCP session only.
    if (auth.principal.anonymous && req.headers[SESSION_KEY_HEADER] !== undefined) {
      return sendError(res, 400, 'anonymous callers cannot choose X-MCC-Session-Key; authenticate with a token to resume a bucket');
    }

    const body = req.method === 'POST' ? await readJsonBody(req, maxBody) : undefined;
    if (body && 'error' in body) return sendError(res, body.status, body.error);
    const parsed = body?.value;
    if (opts.stateless) return serveStateless(req, res, parsed, { runtime: opts.runtime, principal: auth.principal });

    const sid = header(req, 'mcp-session-id');
    if (sid !== undefined) {
      const conn = connections.get(sid);
      // Another principal's session id is answered exactly like an unknown one.
      if (!conn || conn.principal !== auth.principal) return sendError(res, 404, 'session not found');
      await conn.transport.handleRequest(req, res, parsed);
      return;
    }
    if (req.method !== 'POST' || !isInitialize(parsed)) {
      return sendError(res, 400, 'no MCP session: send an initialize request first (without Mcp-Session-Id)');
    }
    await openConnection(auth.principal, req, res, parsed);
  }

  async function openConnection(principal: Principal, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(24).toString('base64url'),
      onsessioninitialized: (id) => {
        connections.set(id, { transport, server, principal });
        logger.info(`session opened for ${principal.user} (${connections.size} open)`);
      },
      onsessionclosed: (id) => {
        connections.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) connections.delete(transport.sessionId);
    };
    const server = createServer({
      runtime: opts.runtime,
      principal,
      sessionKeyFor: (extra: HandlerExtra) => sessionKeyOf(extra),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  hosts = allowedHosts(host, port);
  origins = allowedOrigins(host, port);

  return {
    url: `http://${hostForUrl(host)}:${port}/mcp`,
    host,
    port,
    sessionCount: () => connections.size,
    close: async () => {
      const all = [...connections.values()];
      connections.clear();
      await Promise.allSettled(all.map((c) => c.server.close()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

function sessionKeyOf(extra: HandlerExtra): string {
  const custom = extra.requestInfo?.headers[SESSION_KEY_HEADER];
  const key = Array.isArray(custom) ? custom[0] : custom;
  if (key) return key;
  if (extra.sessionId) return extra.sessionId;
  throw new Error('request has neither an MCP session id nor an X-MCC-Session-Key');
}

function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((m) => isInitializeRequest(m));
  return isInitializeRequest(body);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

type BodyResult = { value: unknown } | { status: number; error: string };

async function readJsonBody(req: IncomingMessage, max: number): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) return { status: 413, error: `request body over ${max} bytes` };
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { status: 400, error: 'empty request body: expected JSON-RPC' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { status: 400, error: 'request body is not valid JSON' };
  }
}

function sendError(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  const code = status === 401 ? -32001 : status === 404 ? -32001 : -32000;
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
