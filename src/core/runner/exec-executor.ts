// Runs exec (and expanded curl) tools: render the command, build the
// environment, run `/bin/sh -c` in its own process group under the tool's
// limits, and answer an RunOutcome. Every run reports started / output /
// exited events. The transform and cache_ttl are the run kit's (run-kit.ts),
// shared with function tools.
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ExecTool, ToolDef } from '../catalog/types';
import { silentLogger, systemClock, type Clock, type Logger } from '../host';
import { markerOf } from './capped-output';
import { render, shownCommand } from './command-render';
import { buildToolEnv, serverEnv, type ServerEnv, type ToolEnv } from './env';
import { ToolInputError } from '../tool-run/errors';
import { explainExit, limitedShellArgs } from './limits';
import { appendLine, lastLine, notFoundHint, stopNote, type StopReason } from './outcome-text';
import { RunStop } from './run-stop';
import { paramsJson } from '../catalog/py-json';
import { PtySpawnError, runChild, type ChildResult, type PtyModule, type RunMode } from './run-child';
import { cleanTerminalText } from './terminal-text';
import type { RunContext, RunOutcome, ToolExecutor } from '../tool-run/contract';
import type { ServerSecrets } from '../secrets';

export interface ExecExecutorOptions {
  logger?: Logger;
  /** The server's environment, the source of each tool's base (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The server's secrets, kept out of every tool's environment (default: MCC_TOKEN). */
  secrets?: ServerSecrets;
  /** Cap of stdout and of stderr, each (default 1 MiB). */
  maxOutputBytes?: number;
  /** Run mode of tools that do not choose (default 'pty'). */
  defaultMode?: RunMode;
  /** Time between SIGTERM and SIGKILL when a run is stopped (default 1000 ms). */
  killGraceMs?: number;
  /** Time source of events (tests). */
  clock?: Clock;
  /** Loads node-pty (tests inject a failing loader to exercise the fallback). */
  loadPty?: () => PtyModule;
}


interface Prepared {
  args: string[];
  env: Record<string, string>;
  /** Ends the environment's extras (MCC_CTX_FILE) once the run is over. */
  toolEnv: ToolEnv;
  mode: RunMode;
  pty?: PtyModule;
}

interface RunHandle {
  halt: (reason: StopReason) => void;
  done: Promise<unknown>;
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;

function loadNodePty(): PtyModule {
  // Loaded lazily: a native module that fails to load must not take the
  // runtime down with it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node-pty') as PtyModule;
}

export class ExecExecutor implements ToolExecutor {
  private readonly logger: Logger;
  private readonly server: ServerEnv;
  private readonly maxOutputBytes: number;
  private readonly defaultMode: RunMode;
  private readonly killGraceMs: number;
  private readonly clock: Clock;
  private readonly loadPty: () => PtyModule;
  private readonly running = new Set<RunHandle>();
  /** undefined: not tried yet; null: could not be loaded. */
  private pty: PtyModule | null | undefined;
  private disposed = false;

  constructor(opts: ExecExecutorOptions = {}) {
    this.logger = opts.logger ?? silentLogger;
    this.server = serverEnv(opts.baseEnv, opts.secrets);
    this.maxOutputBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    this.defaultMode = opts.defaultMode ?? 'pty';
    this.killGraceMs = opts.killGraceMs ?? 1000;
    this.clock = opts.clock ?? systemClock;
    this.loadPty = opts.loadPty ?? loadNodePty;
  }

  describe(tool: ToolDef, params: Record<string, unknown>): { command: string; mode: RunMode } {
    if (tool.kind !== 'exec') return { command: tool.key, mode: 'pipe' };
    return { command: shownCommand(tool, params), mode: this.modeFor(tool) };
  }

  async run(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome> {
    if (tool.kind !== 'exec') throw new Error(`the exec runtime cannot run ${tool.kind} tool '${tool.key}'`);
    const t0 = performance.now();
    const shown = shownCommand(tool, params);
    const started = (mode: RunMode): void =>
      ctx.events.emit({ type: 'started', runId: ctx.runId, toolKey: tool.key, command: shown, caller: ctx.caller, mode, at: this.clock.now() });
    const exited = (code: number, error?: string): void =>
      ctx.events.emit({ type: 'exited', runId: ctx.runId, code, durationMs: Math.round(performance.now() - t0), ...(error ? { error } : {}) });

    let prep: Prepared;
    try {
      if (this.disposed) throw new ToolInputError('the exec runtime is shutting down');
      prep = this.prepare(tool, params, ctx);
    } catch (e) {
      started(this.modeFor(tool));
      exited(-1, e instanceof Error ? e.message : String(e));
      throw e;
    }

    started(prep.mode);
    let outcome: RunOutcome | undefined;
    try {
      outcome = await this.track(tool, params, ctx, prep, t0);
      return outcome;
    } finally {
      prep.toolEnv.dispose();
      if (outcome) exited(outcome.code, outcome.code === 0 ? undefined : lastLine(outcome.stderr));
      else exited(-1, 'the run failed inside the runtime');
    }
  }

  /** Stops every running tool (SIGTERM, then SIGKILL) and resolves when all are gone. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const runs = [...this.running];
    for (const r of runs) r.halt('shutdown');
    await Promise.allSettled(runs.map((r) => r.done));
  }

  private prepare(tool: ExecTool, params: Record<string, unknown>, ctx: RunContext): Prepared {
    const command = render(tool.command, params, 'command');
    if (tool.cwd !== undefined) checkFolder(tool.cwd);
    const timeout = tool.limits.timeout;
    if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout))) {
      throw new ToolInputError(`limits.timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}`);
    }
    const args = limitedShellArgs(tool.limits, command);
    let mode = this.modeFor(tool);
    let pty: PtyModule | undefined;
    if (mode === 'pty') {
      pty = this.ptyModule();
      if (!pty) mode = 'pipe';
    }
    // Last: the environment may hold a temporary file, which run() removes.
    const toolEnv = buildToolEnv(tool, ctx.store, this.server);
    return { args, env: toolEnv.env, toolEnv, mode, ...(pty ? { pty } : {}) };
  }

  private modeFor(tool: ExecTool): RunMode {
    // stdin: true needs a real end of input after the JSON; a terminal can
    // only simulate one with ^D, which a program in raw mode would not see.
    if (tool.stdin) return 'pipe';
    if (tool.pty === false) return 'pipe';
    if (tool.pty === true) return 'pty';
    return this.defaultMode;
  }

  private ptyModule(): PtyModule | undefined {
    if (this.pty === undefined) {
      try {
        this.pty = this.loadPty();
      } catch (e) {
        this.pty = null;
        const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
        this.logger.warn(`node-pty could not be loaded (${why}); exec tools run in pipe mode, without a terminal`);
      }
    }
    return this.pty ?? undefined;
  }

  // Registers the run so dispose() can stop it, and wires timeout and abort.
  private async track(tool: ExecTool, params: Record<string, unknown>, ctx: RunContext, prep: Prepared, t0: number): Promise<RunOutcome> {
    const timeout = tool.limits.timeout;
    const stop = new RunStop(ctx.signal, timeout !== undefined ? timeout * 1000 : undefined);
    const done = this.execute(tool, params, ctx, prep, stop.signal, () => stop.reason, t0);
    const handle: RunHandle = { halt: stop.halt, done };
    this.running.add(handle);
    try {
      return await done;
    } finally {
      stop.dispose();
      this.running.delete(handle);
    }
  }

  private async execute(
    tool: ExecTool,
    params: Record<string, unknown>,
    ctx: RunContext,
    prep: Prepared,
    signal: AbortSignal,
    stopReason: () => StopReason | undefined,
    t0: number,
  ): Promise<RunOutcome> {
    let flags: Pick<RunOutcome, 'truncated' | 'terminal'> = {};
    const finish = (code: number, stdout: string, stderr: string): RunOutcome => ({
      code,
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - t0),
      ...flags,
    });
    const stoppedNote = (): string => stopNote(stopReason(), tool.limits.timeout);
    if (signal.aborted) return finish(-1, '', stoppedNote());

    const main = await this.spawn(prep, {
      args: prep.args,
      stdin: tool.stdin ? paramsJson(params, tool.params) : undefined,
      cwd: tool.cwd,
      signal,
      onOutput: (stream, data) => ctx.events.emit({ type: 'output', runId: ctx.runId, stream, data }),
    });
    const stdout = cleanTerminalText(main.stdout.text());
    let stderr = cleanTerminalText(main.stderr.text());
    const markOut = markerOf(main.stdout);
    const markErr = markerOf(main.stderr);
    if (markOut) ctx.events.emit({ type: 'output', runId: ctx.runId, stream: 'stdout', data: markOut });
    if (markErr) ctx.events.emit({ type: 'output', runId: ctx.runId, stream: 'stderr', data: markErr });
    flags = { ...(main.terminal ? { terminal: true } : {}), ...(markOut || markErr ? { truncated: true } : {}) };

    if (main.aborted || signal.aborted) {
      return finish(-1, stdout + markOut, appendLine(stderr + markErr, stoppedNote()));
    }
    const { code, note } = explainExit(main, tool.limits, `${stdout}\n${stderr}`);
    stderr = appendLine(stderr + markErr, note);
    stderr = appendLine(stderr, notFoundHint(prep.env, code, `${stdout}\n${stderr}`));
    return finish(code, stdout + markOut, stderr);
  }

  private async spawn(
    prep: Prepared,
    run: {
      args: string[];
      stdin: string | undefined;
      cwd: string | undefined;
      signal: AbortSignal;
      onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;
    },
  ): Promise<ChildResult> {
    const spec = {
      mode: prep.mode,
      args: run.args,
      env: prep.env,
      maxOutputBytes: this.maxOutputBytes,
      killGraceMs: this.killGraceMs,
      signal: run.signal,
      ...(prep.pty ? { pty: prep.pty } : {}),
      ...(run.cwd !== undefined ? { cwd: run.cwd } : {}),
      ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
      ...(run.onOutput ? { onOutput: run.onOutput } : {}),
    };
    try {
      return await runChild(spec);
    } catch (e) {
      if (!(e instanceof PtySpawnError)) throw startError(e);
      // A terminal could not be opened (e.g. no ptys left): run without one.
      this.logger.warn(`could not open a terminal (${e.message}); running in pipe mode`);
      return runChild({ ...spec, mode: 'pipe' }).catch((e2: unknown) => {
        throw startError(e2);
      });
    }
  }
}

// The shell could not be started at all (e.g. cwd not accessible): nothing ran.
function startError(e: unknown): Error {
  if (e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string') {
    return new ToolInputError(`could not start /bin/sh: ${e.message}`);
  }
  return e instanceof Error ? e : new Error(String(e));
}

function checkFolder(path: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new ToolInputError(`cwd ${path} does not exist`);
  }
  if (!isDir) throw new ToolInputError(`cwd ${path} is not a folder`);
}


