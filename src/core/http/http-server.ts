// The Streamable HTTP endpoint: loopback bind, bearer auth, Host/Origin
// checks, request bodies read under a cap, then the MCP sessions (each
// belongs to the principal who opened it; see mcp-sessions.ts). Stopping is
// in steps so the serve layer can order them: stop accepting, let running
// calls answer, then close.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import { type Logger, silentLogger } from '../host';
import type { Authenticator } from './authenticator';
import { refusal, sendRefusal, type HttpRefusal } from './json-rpc-errors';
import { DEFAULT_SESSION_LIMITS, McpSessionRegistry, type McpSessionLimits } from './mcp-sessions';
import { allowedHosts, allowedOrigins, hostForUrl } from './request-guard';
import { readJsonRpcBody } from './request-body';
import { SESSION_KEY_HEADER, sessionKeyError } from '../server/bucket-key';
import { StatefulEndpoint } from './stateful-endpoint';
import { missingKeyRefusal, serveStateless, statelessRefusal, type Refusal } from './stateless';
import { ModernEndpoint } from './modern-endpoint';
import { answerHealth, isHealthPath, REASONS, type Readiness } from './health';
import { describeMcpRequest, traceHttpRequest } from '../trace/request-span';
import { NO_SPAN, type TraceSpan } from '../trace/tracing';

export interface HttpServerOptions {
  runtime: Runtime;
  authenticator: Authenticator;
  host?: string;
  port?: number;
  logger?: Logger;
  /** Largest request body accepted (default 4 MiB). */
  maxBodyBytes?: number;
  /** Idle limit and caps of MCP sessions (defaults: 30 min, 100 per principal, 10 anonymous, 1000 in all). */
  sessions?: Partial<McpSessionLimits>;
  /** No server-side MCP sessions (stateless.ts): every request carries its token and X-MCC-Session-Key. */
  stateless?: boolean;
  /** Names a reverse proxy forwards in Host, accepted besides our own address (`--public-host`). */
  publicHosts?: readonly string[];
  /** What GET /readyz checks (health.ts; default: that a catalog was loaded). */
  readiness?: Readiness;
  /** Told the status of every response once it is sent (metrics). */
  onResponse?: (status: number) => void;
}

export interface McpHttpServer {
  url: string;
  host: string;
  port: number;
  /** Number of open MCP sessions. */
  sessionCount(): number;
  /** Stops taking connections and requests (503 from now on); open responses go on. */
  stopAccepting(): void;
  /** Resolves when no POST is in flight any more, or after `graceMs`. */
  drain(graceMs: number): Promise<void>;
  /** Closes every MCP session and connection. */
  close(): Promise<void>;
}

const METHODS = new Set(['GET', 'POST', 'DELETE']);

export async function startHttpServer(opts: HttpServerOptions): Promise<McpHttpServer> {
  const host = opts.host ?? '127.0.0.1';
  const logger = opts.logger ?? silentLogger;
  const sessions = new McpSessionRegistry({ ...DEFAULT_SESSION_LIMITS, ...opts.sessions }, { logger });
  const modern = new ModernEndpoint(opts.runtime, logger);
  const router = new RequestRouter(opts, new StatefulEndpoint(opts.runtime, sessions), modern);
  const onResponse = opts.onResponse;
  const http: Server = createHttpServer((req, res) => {
    if (onResponse) res.once('finish', () => onResponse(res.statusCode));
    traceHttpRequest(req, res, (span) => router.handle(req, res, span)).catch((e: unknown) => {
      logger.error(`request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      sendRefusal(res, refusal(500, 'internal server error'));
    });
  });
  try {
    await listen(http, opts.port ?? 0, host);
  } catch (e) {
    await sessions.closeAll(); // stops its sweep timer
    await modern.close();
    throw e;
  }
  const port = (http.address() as AddressInfo).port;
  router.allow(host, port);
  const closed = new Promise<void>((resolve) => http.once('close', () => resolve()));
  return {
    url: `http://${hostForUrl(host)}:${port}/mcp`,
    host,
    port,
    sessionCount: () => sessions.size,
    stopAccepting: () => {
      if (!router.accepting) return;
      router.accepting = false;
      http.close();
      http.closeIdleConnections();
    },
    drain: (graceMs) => router.posts.idle(graceMs),
    close: async () => {
      router.accepting = false;
      http.close();
      // Ends every open stream (GET streams never end by themselves), so the
      // responses finish cleanly before the sockets go.
      await sessions.closeAll();
      await modern.close();
      await router.posts.idle(1000);
      http.closeAllConnections();
      await closed;
    },
  };
}

function listen(http: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}

/** Every request, in order: the guard, authentication, the stateless rules, the bucket key, the body, the endpoint. */
class RequestRouter {
  accepting = true;
  /** The POSTs being answered, so a stop can let them finish. */
  readonly posts = new InFlight();
  private hosts = new Set<string>();
  private origins = new Set<string>();
  private readonly maxBody: number;
  private readonly readiness: Readiness;

  constructor(
    private readonly opts: HttpServerOptions,
    private readonly endpoint: StatefulEndpoint,
    private readonly modern: ModernEndpoint,
  ) {
    this.maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
    this.readiness = opts.readiness ?? (() => Promise.resolve(opts.runtime.catalog.loaded ? undefined : REASONS.catalog));
  }

  /** The Host and Origin values this server answers, once its port is known. */
  allow(host: string, port: number): void {
    this.hosts = allowedHosts(host, port, this.opts.publicHosts);
    this.origins = allowedOrigins(host, port, this.opts.publicHosts);
  }

  async handle(req: IncomingMessage, res: ServerResponse, span: TraceSpan = NO_SPAN): Promise<void> {
    // Before the guard: probes have no token and their own Host (health.ts).
    if (isHealthPath(req.url)) return answerHealth(req, res, { ready: this.readiness, accepting: this.accepting });
    const problem = this.guard(req);
    if (problem) return sendRefusal(res, problem);
    const auth = this.opts.authenticator.authenticate(req.headers.authorization);
    if (!auth.ok) {
      res.setHeader('WWW-Authenticate', `Bearer realm="mcc", error="invalid_token", error_description="${auth.reason}"`);
      return sendRefusal(res, refusal(401, `Unauthorized: ${auth.reason}`, -32001));
    }
    // Stateless: only callers with a token, and POST (stateless.ts).
    const stateless = this.opts.stateless ? statelessRefusal(req.method, auth.principal) : undefined;
    if (stateless) return sendStatelessRefusal(res, stateless);
    const keyProblem = sessionKeyProblem(req, auth.principal);
    if (keyProblem) return sendRefusal(res, refusal(400, keyProblem));
    let body: unknown;
    if (req.method === 'POST') {
      if (!isJsonContentType(req.headers['content-type'])) return sendRefusal(res, refusal(415, 'Unsupported Media Type: Content-Type must be application/json'));
      this.posts.add(res);
      const read = await readJsonRpcBody(req, this.maxBody);
      if (!read.ok) return sendRefusal(res, read.refusal);
      body = read.value;
    }
    // 2026-07-28 has no MCP sessions: served per request, on any instance, stateless or not.
    const modern = req.method === 'POST' && (await ModernEndpoint.claims(req, body));
    describeMcpRequest(span, req, auth.principal, body, modern);
    // Stateless 2025-11-25: a named bucket too.
    const noKey = this.opts.stateless ? missingKeyRefusal(req.headers[SESSION_KEY_HEADER], modern) : undefined;
    if (noKey) return sendStatelessRefusal(res, noKey);
    if (modern) return this.modern.handle(auth.principal, req, res, body);
    if (this.opts.stateless) return serveStateless(req, res, body, { runtime: this.opts.runtime, principal: auth.principal });
    await this.endpoint.handle(auth.principal, req, res, body);
  }

  // Checks that need no identity: still accepting, our Host and Origin, the path, the method.
  private guard(req: IncomingMessage): HttpRefusal | undefined {
    if (!this.accepting) return refusal(503, 'the server is shutting down', undefined, { Connection: 'close' });
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!this.hosts.has(hostHeader)) return refusal(403, `Host '${req.headers.host ?? ''}' is not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) return refusal(403, `Origin '${origin}' is not allowed`);
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return refusal(404, 'not found: the MCP endpoint is /mcp');
    if (!METHODS.has(req.method ?? '')) return refusal(405, `Method ${req.method ?? ''} not allowed`, undefined, { Allow: 'GET, POST, DELETE' });
    return undefined;
  }
}

// All anonymous callers share one user name; a key they choose could be
// guessed by another, so their buckets are keyed by the MCP session only.
function sessionKeyProblem(req: IncomingMessage, principal: Principal): string | undefined {
  const problem = sessionKeyError(req.headers[SESSION_KEY_HEADER]);
  if (problem) return problem;
  if (principal.anonymous && req.headers[SESSION_KEY_HEADER] !== undefined) {
    return 'anonymous callers cannot choose X-MCC-Session-Key; authenticate with a token to resume a bucket';
  }
  return undefined;
}

function sendStatelessRefusal(res: ServerResponse, r: Refusal): void {
  sendRefusal(res, refusal(r.status, r.message, r.status === 401 ? -32001 : undefined, r.headers));
}

function isJsonContentType(value: string | undefined): boolean {
  return (value ?? '').split(';')[0].trim().toLowerCase() === 'application/json';
}

/** Responses still open, to wait for before the sockets are closed. */
class InFlight {
  private readonly open = new Set<ServerResponse>();
  private waiters: Array<() => void> = [];

  add(res: ServerResponse): void {
    this.open.add(res);
    res.once('close', () => {
      this.open.delete(res);
      if (this.open.size === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  idle(graceMs: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
