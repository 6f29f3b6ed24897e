// The contract between a call and whatever runs its tool (exec or fn), and
// the run events hosts subscribe to (editor terminals, audit log, stderr).
// The lowest floor of the core: everything that runs or reports a run
// imports it, and it imports only the catalog's types.
import type { ToolDef } from '../catalog/types';

/** Who a run is for: the user and the key of the bucket it runs in. */
export interface Caller {
  user: string;
  bucketKey: string;
}

export interface RunContext {
  runId: string;
  caller: Caller;
  /** The whole store as the tool sees it: identity keys + variables (a snapshot). */
  store: Record<string, unknown>;
  signal?: AbortSignal;
  events: RunEventSink;
  /** The run's time limit in seconds (the tool's own, or the default of its kind); none when absent. */
  timeoutSec?: number;
}

export interface RunOutcome {
  /** 0 = success; -1 = timeout; negative signal number = killed by a limit/signal. */
  code: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** fn tools: the returned value (JSON-serialisable). */
  value?: unknown;
  /** fn tools that take `context`: the context as the tool left it. */
  contextOut?: Record<string, unknown>;
  /** True when output past the cap was cut. */
  truncated?: boolean;
  /** True when the run had one terminal, so stderr was merged into stdout. */
  terminal?: boolean;
}

export type RunEventMode = 'pty' | 'pipe' | 'worker' | 'python';

/** How a run shows in events: the command (override params masked) or fn target, and where it runs. */
export interface RunShape {
  command: string;
  mode: RunEventMode;
}

/** A run checked and set up, not yet started. */
export interface PreparedRun extends RunShape {
  /** Runs it; reports only `output` events (the tool runner reports its start and end). */
  start(): Promise<RunOutcome>;
}

/**
 * Runs one kind of tool. The call validates params before; the tool runner
 * (tool-runner.ts) prepares, announces, starts and ends every run.
 */
export interface ToolExecutor {
  /** Checks and sets up a run; throws ToolInputError when the call cannot run. Nothing has started. */
  prepare(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): PreparedRun;
  /** How a run of this tool would show, for runs that start nothing (a cache hit, a failed prepare). */
  describe(tool: ToolDef, params: Record<string, unknown>): RunShape;
  /** Kill everything still running (shutdown). */
  dispose?(): Promise<void> | void;
}

/** Runs a tool to its outcome and reports the whole run: what the call pipeline holds. */
export interface ToolRuns {
  run(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome>;
  dispose?(): Promise<void> | void;
}

export type RunEvent =
  | {
      type: 'started';
      runId: string;
      toolKey: string;
      /** The rendered command with override params masked (exec), or the fn target. */
      command: string;
      caller: Caller;
      mode: RunEventMode;
      at: number;
    }
  | { type: 'output'; runId: string; stream: 'stdout' | 'stderr'; data: string }
  | {
      type: 'exited';
      runId: string;
      code: number;
      durationMs: number;
      error?: string;
      /** True when the outcome came from the cache_ttl cache and nothing ran. */
      cached?: boolean;
    };

export interface RunEventSink {
  emit(event: RunEvent): void;
}

export const nullEventSink: RunEventSink = { emit: () => undefined };

/** One sink that hands every event to each of `sinks`, in order. */
export function teeEventSinks(...sinks: RunEventSink[]): RunEventSink {
  return { emit: (e) => sinks.forEach((s) => s.emit(e)) };
}
