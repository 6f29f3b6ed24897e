// Every metric of one server, in a registry of its own (several servers in
// one process, tests among them, never mix their counts), plus the
// process's own metrics (CPU, memory, event loop, GC), which prom-client
// collects once per process. Loaded only when metrics are asked for (see
// load-metrics.ts): the client library is not read by a start without them.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Disposable } from '../host';
import type { Runtime } from '../runtime';
import type { SessionStoreApi, SessionStorage } from '../session/types';
import { BucketCount } from './bucket-count';
import { CallMetrics } from './call-metrics';
import { toolLabel } from './metric-labels';
import { StoreMetrics } from './store-metrics';

export interface ServerMetricsOptions {
  /** The owner's user name (counted as principal="owner"). */
  ownerUser: string;
  /** Adds the caller's user name as the label `user` of mcc_calls_total. */
  userLabel?: boolean;
  /** The package's version, shown by mcc_build_info (which instance runs what). */
  version?: string;
}

/** What the metrics read from a running server. */
export interface MetricSources {
  runtime: Runtime;
  store: SessionStoreApi;
  /** Open MCP sessions of the HTTP endpoint (0 over stdio, or before it listens). */
  mcpSessions: () => number;
}

export interface ServerMetrics {
  /** The storage backend, timed: give it to the store instead of the backend itself. */
  timeStorage(storage: SessionStorage): SessionStorage;
  /** Starts counting the server's calls, catalog loads and sandbox refusals; dispose to stop. */
  attach(sources: MetricSources): Disposable;
  /** Counts one response of the MCP listener by its status (401: a bad token, 429: too many sessions, …). */
  httpResponse(status: number): void;
  /** The exposition text, this server's metrics and the process's. */
  text(): Promise<string>;
  readonly contentType: string;
}

let processRegistry: Registry | undefined;

// Process metrics are about the process, so one set serves every server in it
// (prom-client's event-loop and GC observers are then started once).
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createServerMetrics(opts: ServerMetricsOptions): ServerMetrics {
  const registry = new Registry();
  const perProcess = processMetrics();
  let sources: MetricSources | undefined;
  const calls = new CallMetrics(registry, {
    ownerUser: opts.ownerUser,
    isCatalogTool: (key) => sources?.runtime.catalog.current.tools.has(key) ?? false,
    ...(opts.userLabel ? { userLabel: true } : {}),
  });
  const store = new StoreMetrics(registry);
  const catalog = new CatalogMetrics(registry);
  const refusals = new Counter({ name: 'mcc_sandbox_refusals_total', help: 'Tools refused because the sandbox they ask for cannot be made here (a run, or loading a Python tool)', labelNames: ['tool'], registers: [registry] });
  const buckets = new BucketCount(() => sources?.store);
  const responses = new Counter({ name: 'mcc_http_responses_total', help: 'Responses of the MCP listener by HTTP status (401: no or a wrong token; 429 and 503: session caps, stopping)', labelNames: ['code'], registers: [registry] });
  new Gauge({ name: 'mcc_build_info', help: 'Always 1; the label version is the version of mcc serving', labelNames: ['version'], registers: [registry] }).set({ version: opts.version ?? 'unknown' }, 1);
  gauge(registry, 'mcc_running_calls', 'Catalog tools running now', () => sources?.runtime.running.size ?? 0);
  gauge(registry, 'mcc_mcp_sessions', 'Open MCP sessions of the HTTP endpoint (2025-11-25 clients; 2026-07-28 and stateless ones have none)', () => sources?.mcpSessions() ?? 0);
  gauge(registry, 'mcc_buckets', 'Live session buckets in the store (counted at most every 30 s)', () => buckets.count());
  return {
    timeStorage: (storage) => store.wrap(storage),
    attach: (s) => {
      sources = s;
      const isTool = (key: string): boolean => s.runtime.catalog.current.tools.has(key);
      if (s.runtime.catalog.loaded) catalog.loaded(s.runtime.catalog.current, Date.now());
      const subscriptions = [
        s.runtime.onDidFinishCall((f) => calls.record(f.call, f.durationMs)),
        s.runtime.catalog.onDidChange((c) => catalog.loaded(c, Date.now())),
        ...(s.runtime.sandbox ? [s.runtime.sandbox.onDidRefuse((key) => refusals.inc({ tool: toolLabel(key, isTool) }))] : []),
      ];
      return {
        dispose: () => {
          for (const d of subscriptions) d.dispose();
          sources = undefined;
        },
      };
    },
    httpResponse: (status) => responses.inc({ code: String(status) }),
    text: () => Registry.merge([perProcess, registry]).metrics(),
    contentType: registry.contentType,
  };
}

function gauge(registry: Registry, name: string, help: string, read: () => number | Promise<number>): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(await read());
    },
  });
}

/** Loads of the catalog (the first one and each reload), its tools and its errors. */
class CatalogMetrics {
  private readonly loads: Counter;
  private readonly tools: Gauge;
  private readonly errors: Gauge;
  private readonly lastLoad: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.loads = new Counter({ name: 'mcc_catalog_loads_total', help: 'Catalog loads: the one at start and every reload', registers });
    this.tools = new Gauge({ name: 'mcc_catalog_tools', help: 'Tools in the catalog loaded now', registers });
    this.errors = new Gauge({ name: 'mcc_catalog_errors', help: 'Errors in the catalog loaded now (tools left out; mcc check lists them)', registers });
    this.lastLoad = new Gauge({ name: 'mcc_catalog_last_load_timestamp_seconds', help: 'When the catalog was last loaded (Unix time)', registers });
  }

  loaded(c: { tools: ReadonlyMap<string, unknown>; diagnostics: ReadonlyArray<{ severity: string }> }, at: number): void {
    this.loads.inc();
    this.tools.set(c.tools.size);
    this.errors.set(c.diagnostics.filter((d) => d.severity === 'error').length);
    this.lastLoad.set(at / 1000);
  }
}
