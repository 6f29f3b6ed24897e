// The metrics of one served server, in the order serve.ts needs them: the
// timed storage before the store opens, the sources once the runtime is
// open, the listener once the catalog is loaded, and the end at the stop.
import type { Disposable, Logger } from '../host';
import { metricsModule, type MetricSources } from './load-metrics';
import { startMetricsListener, type MetricsListener } from './metrics-listener';
import type { SessionStorage } from '../session/types';

export interface MetricsOptions {
  /** Address of the metrics listener (loopback unless the operator names another). */
  host: string;
  /** 0: a free port. */
  port: number;
  /** Adds the caller's user name as a label of mcc_calls_total (off: only owner, user or anonymous). */
  userLabel?: boolean;
  /** The package's version (mcc_build_info). */
  version?: string;
}

export type ServedMetrics = MetricsListener;

export interface ServerMetricsHooks {
  timeStorage(storage: SessionStorage): SessionStorage;
  attach(sources: MetricSources): void;
  /** Counts one response of the MCP listener by its status. */
  readonly httpResponse: (status: number) => void;
  listen(logger: Logger): Promise<ServedMetrics>;
  /** Stops counting (the listener is closed on its own). */
  dispose(): void;
}

export function startServedMetrics(o: MetricsOptions, ownerUser: string): ServerMetricsHooks {
  const metrics = metricsModule().createServerMetrics({ ownerUser, ...(o.userLabel ? { userLabel: true } : {}), ...(o.version !== undefined ? { version: o.version } : {}) });
  let attached: Disposable | undefined;
  return {
    timeStorage: (storage) => metrics.timeStorage(storage),
    attach: (sources) => {
      attached = metrics.attach(sources);
    },
    httpResponse: (status) => metrics.httpResponse(status),
    listen: (logger) =>
      startMetricsListener(metrics, o.host, o.port, logger).catch((e: unknown) => {
        throw new Error(`the metrics listener cannot listen on ${o.host}:${o.port}: ${e instanceof Error ? e.message : String(e)}`);
      }),
    dispose: () => attached?.dispose(),
  };
}
