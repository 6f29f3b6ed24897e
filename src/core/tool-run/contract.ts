// The contract between the runtime and whatever runs a tool (exec or fn),
// and the run events hosts subscribe to (editor terminals, audit log, stderr).
import type { ToolDef } from '../catalog/types';

export interface Caller {
  user: string;
  sessionKey: string;
}

export interface RunContext {
  runId: string;
  caller: Caller;
  /** The whole store as the tool sees it: identity keys + variables (a snapshot). */
  store: Record<string, unknown>;
  signal?: AbortSignal;
  events: RunEventSink;
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

/** Runs one kind of tool. The runtime validates params before calling. */
export interface ToolExecutor {
  run(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome>;
  /** How a run of this tool shows in events (for runs answered without one, e.g. from the cache). */
  describe?(tool: ToolDef, params: Record<string, unknown>): { command: string; mode: RunEventMode };
  /** Kill everything still running (shutdown). */
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
