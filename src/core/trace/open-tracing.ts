// Turns traces on when the environment asks for them, once per process:
// an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and no OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none. Otherwise nothing is loaded and every span is
// the no-op one.
import { join } from 'node:path';
import type { Logger } from '../host';
import { installTracing, tracing, type Tracing } from './tracing';

let opened = false;

/** Whether this environment asks for traces. */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * The process's tracing: OpenTelemetry when the environment asks for it
 * (loaded here, the first time), else the no-op one. A later call returns
 * what the first chose (an editor restarts its server in the same process).
 */
export function openTracing(env: NodeJS.ProcessEnv, version: string, logger: Logger): Tracing {
  if (opened) return tracing();
  opened = true;
  if (!tracesWanted(env)) return tracing();
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json').trim();
  if (protocol !== 'http/json') logger.warn(`traces are sent as OTLP http/json; OTEL_EXPORTER_OTLP_PROTOCOL '${protocol}' is not supported and is ignored`);
  try {
    // Beside this file: dist/otel-tracing.js in the bundle, out/.../otel-tracing.js in tests.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OtelTracing } = require(join(__dirname, 'otel-tracing.js')) as typeof import('./otel-tracing');
    installTracing(new OtelTracing({ env, version }));
  } catch (e) {
    logger.warn(`traces are off: OpenTelemetry could not start: ${e instanceof Error ? e.message : String(e)}`);
    return tracing();
  }
  logger.info(`traces: OTLP/HTTP to ${endpointShown(env)}`);
  return tracing();
}

// The endpoint without any credentials its URL may carry.
function endpointShown(env: NodeJS.ProcessEnv): string {
  const raw = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) ?? '';
  try {
    const u = new URL(raw);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'an endpoint that is not a URL';
  }
}
