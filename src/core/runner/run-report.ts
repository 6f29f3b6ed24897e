// The start and the end of one run as events: built here and nowhere else,
// whatever ran (a shell, a function, nothing at all for a cache hit), so
// every host sees exactly one `started` and one `exited` per run; the run's
// trace span (tool, kind, mode, sandbox, exit code, duration) starts and ends
// with them.
import { performance } from 'node:perf_hooks';
import type { ToolDef } from '../catalog/types';
import type { Clock } from '../host';
import type { RunContext, RunOutcome, RunShape } from '../tool-run/contract';
import { lastLine } from './outcome-text';
import { tracing, type TraceSpan } from '../trace/tracing';

export class RunReport {
  private readonly t0 = performance.now();
  private ended = false;
  private readonly span: TraceSpan;

  constructor(
    private readonly tool: ToolDef,
    private readonly ctx: Pick<RunContext, 'runId' | 'caller' | 'events'>,
    private readonly clock: Clock,
    /** The run's sandbox ('off', 'default', 'tool'), asked only when traced. */
    sandbox?: () => string,
  ) {
    this.span = tracing().start(`run ${tool.key}`);
    if (this.span.recording) {
      this.span.set('mcc.tool.key', tool.key);
      this.span.set('mcc.tool.kind', tool.kind);
      if (sandbox) this.span.set('mcc.run.sandbox', sandbox());
    }
  }

  /** Milliseconds since the run was asked for. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.t0);
  }

  started(shape: RunShape): void {
    const { runId, caller } = this.ctx;
    this.ctx.events.emit({ type: 'started', runId, toolKey: this.tool.key, command: shape.command, caller, mode: shape.mode, at: this.clock.now() });
    this.span.set('mcc.run.mode', shape.mode);
  }

  /** A run that could not start: its start and its end, with why. */
  refused(shape: RunShape, e: unknown): void {
    this.started(shape);
    this.end(-1, e instanceof Error ? e.message : String(e));
  }

  /** A run answered from the cache: nothing ran. */
  cached(shape: RunShape, code: number): void {
    this.started(shape);
    this.end(code, undefined, true);
  }

  /** The end of a run with its final outcome, or the failure that left it without one. */
  exited(outcome: RunOutcome | undefined, failure: string | undefined): void {
    if (outcome) this.end(outcome.code, outcome.code === 0 ? undefined : (lastLine(outcome.stderr) ?? `code ${outcome.code}`));
    else this.end(-1, failure ?? 'the run failed inside the runtime');
  }

  private end(code: number, error: string | undefined, cached = false): void {
    if (this.ended) return;
    this.ended = true;
    const durationMs = this.elapsedMs();
    this.ctx.events.emit({ type: 'exited', runId: this.ctx.runId, code, durationMs, ...(error ? { error } : {}), ...(cached ? { cached: true } : {}) });
    this.endSpan(code, durationMs, cached);
  }

  // The exit code and duration only: the error text may quote the tool's output.
  private endSpan(code: number, durationMs: number, cached: boolean): void {
    if (this.span.recording) {
      this.span.set('process.exit.code', code);
      this.span.set('mcc.run.duration_ms', durationMs);
      this.span.set('mcc.run.cached', cached);
      if (code !== 0) this.span.fail(`exit code ${code}`);
    }
    this.span.end();
  }
}
