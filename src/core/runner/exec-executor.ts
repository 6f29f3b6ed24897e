// Runs exec (and expanded curl) tools: render the command, build the
// environment, run `/bin/sh -c` in its own process group under the tool's
// limits, and answer a RunOutcome. It reports the run's output; the tool
// runner (tool-runner.ts) reports its start and end, and adds the transform
// and cache_ttl, shared with function tools.
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ExecTool, ToolDef } from '../catalog/types';
import { silentLogger, type Logger } from '../host';
import { DEFAULT_MAX_OUTPUT_BYTES, markerOf } from './capped-output';
import { renderCommand, shownCommand } from './command-render';
import { buildToolEnv, serverEnv, type ServerEnv, type ToolEnv } from './env';
import { ToolInputError } from '../tool-run/errors';
import { explainExit, limitedShellArgs } from './limits';
import { appendLine, notFoundHint, stopNote, type StopReason } from './outcome-text';
import { RunStop } from './run-stop';
import { paramsJson } from '../catalog/py-json';
import { PtySpawnError, runChild, type ChildResult, type PtyModule, type RunMode } from './run-child';
import { cleanTerminalText } from './terminal-text';
import type { PreparedRun, RunContext, RunOutcome, RunShape, ToolExecutor } from '../tool-run/contract';
import type { ServerSecrets } from '../secrets';
import { Sandbox, sandboxExit, type SandboxedStart } from '../sandbox/sandbox';

export interface ExecExecutorOptions {
  /**
   * How exec tools run when they do not choose (`pty:` in the catalog):
   * 'pty' where a person watches each run in a terminal (the editor),
   * 'pipe' where nobody does (headless: stdout and stderr apart, at half the cost).
   */
  defaultMode: RunMode;
  logger?: Logger;
  /** The server's environment, the source of each tool's base (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The server's secrets, kept out of every tool's environment (default: MCC_TOKEN). */
  secrets?: ServerSecrets;
  /** Cap of stdout and of stderr, each (default 1 MiB). */
  maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL when a run is stopped (default 1000 ms). */
  killGraceMs?: number;
  /** Loads node-pty (tests inject a failing loader to exercise the fallback). */
  loadPty?: () => PtyModule;
  /** Who runs sandboxed and how (default: only tools whose catalog asks for it). */
  sandbox?: Sandbox;
}

interface Prepared {
  tool: ExecTool;
  params: Record<string, unknown>;
  ctx: RunContext;
  args: string[];
  env: Record<string, string>;
  /** Ends the environment's extras (MCC_CTX_FILE) once the run is over. */
  toolEnv: ToolEnv;
  mode: RunMode;
  pty?: PtyModule;
  /** The tool's sandbox, when it has one. */
  boxed?: SandboxedStart;
}

interface RunHandle {
  halt: (reason: StopReason) => void;
  done: Promise<unknown>;
}

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
  private readonly loadPty: () => PtyModule;
  private readonly sandbox: Sandbox;
  private readonly running = new Set<RunHandle>();
  /** undefined: not tried yet; null: could not be loaded. */
  private pty: PtyModule | null | undefined;

  constructor(opts: ExecExecutorOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.server = serverEnv(opts.baseEnv, opts.secrets);
    this.maxOutputBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.defaultMode = opts.defaultMode;
    this.killGraceMs = opts.killGraceMs ?? 1000;
    this.loadPty = opts.loadPty ?? loadNodePty;
    this.sandbox = opts.sandbox ?? new Sandbox({ hidden: this.server.secrets.files ?? [] });
  }

  describe(tool: ToolDef, params: Record<string, unknown>): RunShape {
    if (tool.kind !== 'exec') return { command: tool.key, mode: 'pipe' };
    return { command: shownCommand(tool, params), mode: this.modeFor(tool) };
  }

  /** Renders the command once, checks cwd, picks the mode and builds the environment; nothing runs. */
  prepare(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): PreparedRun {
    if (tool.kind !== 'exec') throw new Error(`the exec runtime cannot run ${tool.kind} tool '${tool.key}'`);
    const { command, shown } = renderCommand(tool, params);
    if (tool.cwd !== undefined) checkFolder(tool.cwd);
    const args = limitedShellArgs(tool.limits, command);
    let mode = this.modeFor(tool);
    let pty: PtyModule | undefined;
    if (mode === 'pty') {
      pty = this.ptyModule();
      if (!pty) mode = 'pipe';
    }
    // Last: the environment may hold a temporary file, which the run removes.
    const toolEnv = buildToolEnv(tool, ctx.store, this.server);
    let boxed: SandboxedStart | undefined;
    try {
      boxed = this.sandbox.prepare(tool, { env: toolEnv.env, ...(tool.cwd !== undefined ? { cwd: tool.cwd } : {}) });
    } catch (e) {
      toolEnv.dispose();
      throw e;
    }
    const env = boxed?.env ?? toolEnv.env;
    const prep: Prepared = { tool, params, ctx, args, env, toolEnv, mode, ...(pty ? { pty } : {}), ...(boxed ? { boxed } : {}) };
    return { command: shown, mode, start: () => this.start(prep) };
  }

  private async start(prep: Prepared): Promise<RunOutcome> {
    try {
      return await this.track(prep, performance.now());
    } finally {
      prep.toolEnv.dispose();
    }
  }

  /** Stops every running tool (SIGTERM, then SIGKILL) and resolves when all are gone. */
  async dispose(): Promise<void> {
    const runs = [...this.running];
    for (const r of runs) r.halt('shutdown');
    await Promise.allSettled(runs.map((r) => r.done));
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
  private async track(prep: Prepared, t0: number): Promise<RunOutcome> {
    const timeoutSec = prep.ctx.timeoutSec;
    const stop = new RunStop(prep.ctx.signal, timeoutSec !== undefined ? timeoutSec * 1000 : undefined);
    const done = this.execute(prep, stop.signal, () => stop.reason, t0);
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
    prep: Prepared,
    signal: AbortSignal,
    stopReason: () => StopReason | undefined,
    t0: number,
  ): Promise<RunOutcome> {
    const { tool, params, ctx } = prep;
    let flags: Pick<RunOutcome, 'truncated' | 'terminal'> = {};
    const finish = (code: number, stdout: string, stderr: string): RunOutcome => ({
      code,
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - t0),
      ...flags,
    });
    const stoppedNote = (): string => stopNote(stopReason(), ctx.timeoutSec);
    if (signal.aborted) return finish(-1, '', stoppedNote());

    const spawned = await this.spawn(prep, {
      args: prep.args,
      stdin: tool.stdin ? paramsJson(params, tool.params) : undefined,
      cwd: tool.cwd,
      signal,
      onOutput: (stream, data) => ctx.events.emit({ type: 'output', runId: ctx.runId, stream, data }),
    });
    const main = prep.boxed ? sandboxExit(spawned) : spawned;
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
      ...(prep.boxed ? { wrap: prep.boxed.wrap } : {}),
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


