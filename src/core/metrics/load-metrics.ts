// Loads the metrics module (and prom-client with it) only for a server
// that serves metrics. In the bundle it is a file of its own beside
// dist/cli-main.js (scripts/build.mjs), as the Redis store is; in compiled
// tests it sits beside this file.
import { join } from 'node:path';
import type * as ServerMetricsModule from './server-metrics';

export type { ServerMetrics, ServerMetricsOptions, MetricSources } from './server-metrics';

let loaded: typeof ServerMetricsModule | undefined;

export function metricsModule(): typeof ServerMetricsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require(join(__dirname, 'server-metrics.js')) as typeof ServerMetricsModule);
}
