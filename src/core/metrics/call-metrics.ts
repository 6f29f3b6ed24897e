// The metrics of finished calls, fed by the one audit path (every call of
// every MCP surface, refusals included, exactly once): a counter by tool,
// result and kind of caller (the user's name only when the operator asks),
// and a duration histogram by tool and result.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { FinishedCall } from '../call/audit-trail';
import { principalKind, resultLabel, toolLabel } from './metric-labels';

export interface CallMetricsOptions {
  /** The owner's user name, counted as principal="owner". */
  ownerUser: string;
  /** Whether a key is a tool of the catalog loaded now (other keys count as "(unknown)"). */
  isCatalogTool: (key: string) => boolean;
  /** Adds the label `user` (the caller's user name) to mcc_calls_total. */
  userLabel?: boolean;
}

// From a quick get_session to a build that runs for minutes (tools' own time limits reach 300 s and more).
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export class CallMetrics {
  private readonly calls: Counter<string>;
  private readonly duration: Histogram<string>;

  constructor(
    registry: Registry,
    private readonly opts: CallMetricsOptions,
  ) {
    this.calls = new Counter({
      name: 'mcc_calls_total',
      help: 'Finished calls (execute of a catalog tool by its key, the other MCP tools, prompts and the session resource), refusals included',
      labelNames: opts.userLabel ? ['tool', 'result', 'principal', 'user'] : ['tool', 'result', 'principal'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'mcc_call_duration_seconds',
      help: 'Time from a call being received to its answer, by tool and result',
      labelNames: ['tool', 'result'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** Counts one finished call that took `durationMs`. */
  record(call: FinishedCall, durationMs: number): void {
    const tool = toolLabel(call.what, this.opts.isCatalogTool);
    const result = resultLabel(call.code);
    const principal = principalKind(call.principal, this.opts.ownerUser);
    this.calls.inc(this.opts.userLabel ? { tool, result, principal, user: call.principal.user } : { tool, result, principal });
    this.duration.observe({ tool, result }, Math.max(0, durationMs) / 1000);
  }
}
