// One way to assemble and run a server, shared by `mcc serve` and the
// editor: the runtime over the host's storage, the authenticator, then the
// transport (Streamable HTTP with its MCP session limits, or stdio). The
// stop is ordered so nothing is lost: stop accepting, cancel running tools
// and let their callers have the answer, close the transport, then close the
// store (which writes what it still holds, once), then send the last trace
// spans when traces are on (trace/open-tracing.ts).
import { randomBytes } from 'node:crypto';
import { serveStdio as serveBothOnStdio } from '@modelcontextprotocol/server/stdio';
import { silentLogger, type Logger } from '../host';
import type { Principal } from '../identity';
import { Authenticator } from '../http/authenticator';
import { startHttpServer, type McpHttpServer } from '../http/http-server';
import { readinessOf } from '../http/health';
import type { McpSessionLimits } from '../http/mcp-sessions';
import type { UsersConfig } from '../http/users-file';
import { openRuntime, type OpenedRuntime, type OpenRuntimeOptions } from '../open-runtime';
import { createServer, SERVER_VERSION } from '../server/create-server';
import { openTracing } from '../trace/open-tracing';
import { serverSecrets } from '../secrets';
import { startServedMetrics, type MetricsOptions, type ServedMetrics } from '../metrics/served-metrics';

export interface HttpTransportOptions {
  kind: 'http';
  host: string;
  port: number;
  sessions?: Partial<McpSessionLimits>;
  /** No server-side MCP sessions: any instance answers any request (see stateless.ts). */
  stateless?: boolean;
  /** Names a reverse proxy forwards in Host (`--public-host`). */
  publicHosts?: readonly string[];
  maxBodyBytes?: number;
  /** When set, a taken port is reported here and a free one is used instead. */
  onPortTaken?: (port: number) => void;
}

export interface StdioTransportOptions {
  kind: 'stdio';
  /** The bucket key of the one stdio client (default: a new one per start). */
  sessionKey?: string;
}

export interface ServeOptions {
  /** The runtime's options; the secrets default to those of the owner, the users file and the environment. */
  runtime: Omit<OpenRuntimeOptions, 'secrets'> & { secrets?: OpenRuntimeOptions['secrets'] };
  owner: { token: string; principal: Principal };
  users?: UsersConfig;
  /** Files that hold the server's secrets (the users file): no tool sandbox shows them. */
  secretFiles?: string[];
  transport: HttpTransportOptions | StdioTransportOptions;
  /** Runs once the runtime is open, before anything is served (e.g. loads the catalog). */
  prepare?: (opened: OpenedRuntime) => Promise<void> | void;
  /** Prometheus metrics on a listener of their own (metrics/served-metrics.ts). */
  metrics?: MetricsOptions;
  logger?: Logger;
}

export interface RunningServer extends OpenedRuntime {
  authenticator: Authenticator;
  /** The HTTP endpoint; absent over stdio. */
  http?: McpHttpServer;
  /** The metrics endpoint, when asked for. */
  metrics?: { url: string };
  /** Stops in order; the same promise for every call. */
  stop(): Promise<void>;
}

/** What the stop sequence needs of a transport. */
interface Served {
  stopAccepting(): void;
  drain(graceMs: number): Promise<void>;
  close(): Promise<void>;
}

// Running tools are cancelled first, so their answers come quickly; this only
// bounds the wait for the last bytes to reach the callers.
const ANSWER_GRACE_MS = 5000;

export async function startServing(o: ServeOptions): Promise<RunningServer> {
  const logger = o.logger ?? o.runtime.logger ?? silentLogger;
  // Before anything opens: a bad owner or users file is the caller's error to report.
  const authenticator = new Authenticator(o.owner, o.users);
  const traces = openTracing(process.env, SERVER_VERSION, logger);
  // The owner's token and the users file's are the server's secrets: no tool or log line gets them.
  const secrets = o.runtime.secrets ?? serverSecrets({ ownerToken: o.owner.token, ...(o.users ? { users: o.users } : {}), env: process.env, ...(o.secretFiles ? { files: o.secretFiles } : {}) });
  const metrics = o.metrics ? startServedMetrics(o.metrics, o.owner.principal.user) : undefined;
  const storage = metrics ? metrics.timeStorage(o.runtime.storage) : o.runtime.storage;
  const opened = await openRuntime({ handleSecret: o.owner.token, ...o.runtime, storage, secrets });
  const { runtime, store } = opened;
  let served: Served;
  let http: McpHttpServer | undefined;
  let metricsServed: ServedMetrics | undefined;
  try {
    // Before the catalog loads, so its first load is counted.
    metrics?.attach({ runtime, store, mcpSessions: () => http?.sessionCount() ?? 0 });
    // Expired buckets go before anything is shown or served.
    const swept = await store.sweep();
    if (swept > 0) logger.info(`removed ${swept} expired session bucket(s)`);
    await o.prepare?.(opened);
    // Before the transport: if its port is taken, nothing is listening yet.
    metricsServed = await metrics?.listen(logger);
    if (o.transport.kind === 'http') {
      http = await listen(o.transport, opened, authenticator, logger, metrics?.httpResponse);
      served = http;
    } else {
      served = serveStdio(o.transport, opened, o.owner.principal);
    }
  } catch (e) {
    await runtime.shutdown().catch(() => undefined);
    await store.close().catch(() => undefined);
    await metricsServed?.close().catch(() => undefined);
    metrics?.dispose();
    throw e;
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      served.stopAccepting();
      try {
        // Cancels running tools and waits until each call has its answer.
        await runtime.shutdown();
        await served.drain(ANSWER_GRACE_MS);
      } finally {
        try {
          await served.close();
        } finally {
          // The one flush: writes what is still queued (last-use times), then releases the backend.
          try {
            await store.close();
          } finally {
            await traces.flush();
            // Last, so a scrape during the stop still answers.
            await metricsServed?.close();
            metrics?.dispose();
          }
        }
      }
    })());
  return { ...opened, authenticator, ...(http ? { http } : {}), ...(metricsServed ? { metrics: { url: metricsServed.url } } : {}), stop };
}

async function listen(t: HttpTransportOptions, opened: OpenedRuntime, authenticator: Authenticator, logger: Logger, onResponse?: (status: number) => void): Promise<McpHttpServer> {
  const start = (port: number): Promise<McpHttpServer> =>
    startHttpServer({
      runtime: opened.runtime,
      authenticator,
      host: t.host,
      port,
      logger,
      ...(t.sessions ? { sessions: t.sessions } : {}),
      ...(t.stateless ? { stateless: true } : {}),
      ...(t.publicHosts?.length ? { publicHosts: t.publicHosts } : {}),
      ...(t.maxBodyBytes !== undefined ? { maxBodyBytes: t.maxBodyBytes } : {}),
      readiness: readinessOf(() => opened.runtime.catalog.loaded, opened.store, logger),
      ...(onResponse ? { onResponse } : {}),
    });
  try {
    return await start(t.port);
  } catch (e) {
    if (!t.onPortTaken || t.port === 0 || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    t.onPortTaken(t.port);
    return start(0);
  }
}

// One client on this process's stdin/stdout, as the owner.
function serveStdio(t: StdioTransportOptions, opened: OpenedRuntime, owner: Principal): Served {
  const key = t.sessionKey ?? `stdio-${randomBytes(12).toString('base64url')}`;
  // Both revisions: a 2025-11-25 client gets one server for its session, a
  // 2026-07-28 client one per request; all of them share the one bucket.
  const served = serveBothOnStdio((rc) => createServer({ runtime: opened.runtime, principal: owner, fixedBucketKey: key, modern: rc.era === 'modern' }));
  return { stopAccepting: () => undefined, drain: () => Promise.resolve(), close: () => served.close() };
}
