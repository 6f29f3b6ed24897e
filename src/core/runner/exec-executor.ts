// Runs exec (and expanded curl) tools: render the command, build the
// environment, run `/bin/sh -c` in its own process group under the tool's
// limits, pipe a successful stdout through the transform, and answer an
// ExecOutcome. Every run reports started / output / exited events.
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ExecTool, ToolDef } from '../catalog/types';
import { silentLogger, systemClock, type Clock, type Logger } from '../host';
import { truncationMarker, type CappedOutput } from './capped-output';
import { render, shownCommand } from './command-render';
import { buildToolEnv, serverEnv, type ServerEnv, type ToolEnv } from './env';
import { stopReasonOf, ToolInputError } from './errors';
import { limitedShellArgs, memoryExitNote, signalFromShellCode, signalNote } from './limits';
import { appendLine, lastLine, notFoundHint } from './outcome-text';
import { cacheKey, ResultCache } from './result-cache';
import { PtySpawnError, runChild, type ChildResult, type PtyModule, type RunMode } from './run-child';
import { cleanTerminalText } from './terminal-text';
import type { CallContext, ExecOutcome, ToolExecutor } from './types';
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
  /** Bound of the cache_ttl cache (default 256 entries). */
  cacheMaxEntries?: number;
  /** Time between SIGTERM and SIGKILL when a run is stopped (default 1000 ms). */
  killGraceMs?: number;
  /** Time source of cache expiry (tests). */
  clock?: Clock;
  /** Loads node-pty (tests inject a failing loader to exercise the fallback). */
  loadPty?: () => PtyModule;
}

type StopReason = 'timeout' | 'cancelled' | 'shutdown';

interface Prepared {
  args: string[];
  transformArgs?: string[];
  env: Record<string, string>;
  /** Ends the environment's extras (MCC_CTX_FILE) once the run and its transform are over. */
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
  private readonly cache: ResultCache;
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
    this.cache = new ResultCache(opts.cacheMaxEntries ?? 256, this.clock);
  }

  async run(tool: ToolDef, params: Record<string, unknown>, ctx: CallContext): Promise<ExecOutcome> {
    if (tool.kind !== 'exec') throw new Error(`the exec runtime cannot run ${tool.kind} tool '${tool.key}'`);
    const t0 = performance.now();
    const shown = shownCommand(tool, params);
    const started = (mode: RunMode): void =>
      ctx.events.emit({ type: 'started', runId: ctx.runId, toolKey: tool.key, command: shown, caller: ctx.caller, mode, at: this.clock.now() });
    const exited = (code: number, error?: string, cached?: boolean): void =>
      ctx.events.emit({
        type: 'exited',
        runId: ctx.runId,
        code,
        durationMs: Math.round(performance.now() - t0),
        ...(error ? { error } : {}),
        ...(cached ? { cached } : {}),
      });

    let prep: Prepared;
    try {
      if (this.disposed) throw new ToolInputError('the exec runtime is shutting down');
      prep = this.prepare(tool, params, ctx);
    } catch (e) {
      started(this.modeFor(tool));
      exited(-1, e instanceof Error ? e.message : String(e));
      throw e;
    }

    const key = tool.cacheTtl && tool.cacheTtl > 0 ? cacheKey(tool.key, params, ctx.store) : undefined;
    const hit = key !== undefined ? this.cache.get(key) : undefined;
    if (hit) {
      prep.toolEnv.dispose();
      started(prep.mode);
      exited(hit.code, undefined, true);
      return { ...hit, durationMs: Math.round(performance.now() - t0) };
    }

    started(prep.mode);
    let outcome: ExecOutcome | undefined;
    try {
      outcome = await this.track(tool, params, ctx, prep, t0);
      if (key !== undefined && outcome.code === 0) this.cache.set(key, outcome, tool.cacheTtl as number);
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
    this.cache.clear();
  }

  private prepare(tool: ExecTool, params: Record<string, unknown>, ctx: CallContext): Prepared {
    const command = render(tool.command, params, 'command');
    const transform = tool.transform ? render(tool.transform, params, 'transform') : undefined;
    if (tool.cwd !== undefined) checkFolder(tool.cwd);
    const timeout = tool.limits.timeout;
    if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout))) {
      throw new ToolInputError(`limits.timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}`);
    }
    const args = limitedShellArgs(tool.limits, command);
    const transformArgs = transform !== undefined ? limitedShellArgs(tool.limits, transform) : undefined;
    let mode = this.modeFor(tool);
    let pty: PtyModule | undefined;
    if (mode === 'pty') {
      pty = this.ptyModule();
      if (!pty) mode = 'pipe';
    }
    // Last: the environment may hold a temporary file, which run() removes.
    const toolEnv = buildToolEnv(tool, ctx.store, this.server);
    return { args, env: toolEnv.env, toolEnv, mode, ...(transformArgs ? { transformArgs } : {}), ...(pty ? { pty } : {}) };
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
  private async track(tool: ExecTool, params: Record<string, unknown>, ctx: CallContext, prep: Prepared, t0: number): Promise<ExecOutcome> {
    const stop = new AbortController();
    let reason: StopReason | undefined;
    const halt = (r: StopReason): void => {
      if (reason) return;
      reason = r;
      stop.abort();
    };
    const onCancel = (): void => halt(stopReasonOf(ctx.signal));
    ctx.signal?.addEventListener('abort', onCancel, { once: true });
    if (ctx.signal?.aborted) onCancel();
    const timeout = tool.limits.timeout;
    const timer = timeout !== undefined ? setTimeout(() => halt('timeout'), timeout * 1000) : undefined;
    const done = this.execute(tool, params, ctx, prep, stop.signal, () => reason, t0);
    const handle: RunHandle = { halt, done };
    this.running.add(handle);
    try {
      return await done;
    } finally {
      if (timer) clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', onCancel);
      this.running.delete(handle);
    }
  }

  private async execute(
    tool: ExecTool,
    params: Record<string, unknown>,
    ctx: CallContext,
    prep: Prepared,
    signal: AbortSignal,
    stopReason: () => StopReason | undefined,
    t0: number,
  ): Promise<ExecOutcome> {
    let flags: Pick<ExecOutcome, 'truncated' | 'terminal'> = {};
    const finish = (code: number, stdout: string, stderr: string): ExecOutcome => ({
      code,
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - t0),
      ...flags,
    });
    const stoppedNote = (): string => {
      const r = stopReason();
      if (r === 'timeout') return `timeout after ${String(tool.limits.timeout)}s`;
      if (r === 'shutdown') return 'cancelled: the server is shutting down';
      return 'cancelled';
    };
    if (signal.aborted) return finish(-1, '', stoppedNote());

    const main = await this.spawn(prep, {
      args: prep.args,
      stdin: tool.stdin ? JSON.stringify(params) : undefined,
      cwd: tool.cwd,
      signal,
      onOutput: (stream, data) => ctx.events.emit({ type: 'output', runId: ctx.runId, stream, data }),
    });
    const stdout = cleanTerminalText(main.stdout.text());
    let stderr = cleanTerminalText(main.stderr.text());
    const markOut = marker(main.stdout);
    const markErr = marker(main.stderr);
    if (markOut) ctx.events.emit({ type: 'output', runId: ctx.runId, stream: 'stdout', data: markOut });
    if (markErr) ctx.events.emit({ type: 'output', runId: ctx.runId, stream: 'stderr', data: markErr });
    flags = { ...(main.terminal ? { terminal: true } : {}), ...(markOut || markErr ? { truncated: true } : {}) };

    if (main.aborted || signal.aborted) {
      return finish(-1, stdout + markOut, appendLine(stderr + markErr, stoppedNote()));
    }
    let { code, note } = this.judge(main, tool, `${stdout}\n${stderr}`);
    if (code !== 0 || !prep.transformArgs) {
      stderr = appendLine(stderr + markErr, note);
      stderr = appendLine(stderr, notFoundHint(prep.env, code, `${stdout}\n${stderr}`));
      return finish(code, stdout + markOut, stderr);
    }

    // The transform reads the tool's clean stdout; it always runs on pipes.
    const t = await this.spawn({ ...prep, mode: 'pipe' }, { args: prep.transformArgs, stdin: stdout, cwd: tool.cwd, signal });
    const tOut = cleanTerminalText(t.stdout.text()) + marker(t.stdout);
    const tErr = cleanTerminalText(t.stderr.text()) + marker(t.stderr);
    if (t.stdout.truncated || t.stderr.truncated) flags = { ...flags, truncated: true };
    stderr = appendLine(stderr + markErr, tErr);
    if (t.aborted || signal.aborted) return finish(-1, tOut, appendLine(stderr, `${stoppedNote()} (in the transform)`));
    ({ code, note } = this.judge(t, tool, `${tOut}\n${tErr}`));
    if (code !== 0) {
      stderr = appendLine(stderr, note);
      stderr = appendLine(stderr, `mcc: the transform failed with code ${code}`);
      stderr = appendLine(stderr, notFoundHint(prep.env, code, tErr));
      return finish(code, tOut, stderr);
    }
    return finish(0, tOut + markOut, stderr);
  }

  // The outcome code of a finished child, and what to say about it.
  private judge(child: ChildResult, tool: ExecTool, output: string): { code: number; note: string } {
    if (child.signal !== null) return { code: -child.signal, note: signalNote(child.signal, tool.limits) };
    const code = child.code ?? -1;
    const sig = signalFromShellCode(code, tool.limits);
    if (sig !== undefined) return { code: -sig, note: signalNote(sig, tool.limits) };
    return { code, note: memoryExitNote(code, output, tool.limits) ?? '' };
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

function marker(out: CappedOutput): string {
  return out.truncated ? truncationMarker(out.cutBytes) : '';
}

