// Runs one tool, whatever runs it (exec shell or function): checks its time
// limit and transform, answers from the cache_ttl cache, prepares the run
// with its executor, reports its start and end (run-report.ts) and pipes a
// successful outcome through the transform. One runner wraps the exec and
// the fn executor alike, so both kinds honour `transform` and `cache_ttl`
// the same way, as MCC does; the end is reported after the transform, so
// hosts (terminals, logs) see the call's real end.
import type { ToolDef } from '../catalog/types';
import { pyJsonDumps } from '../catalog/py-json';
import { systemClock, type Clock } from '../host';
import { markerOf } from './capped-output';
import { render } from './command-render';
import { buildToolEnv, serverEnv, type ServerEnv } from './env';
import { ToolInputError } from '../tool-run/errors';
import { explainExit, limitedShellArgs } from './limits';
import { appendLine, notFoundHint, stopNote, type StopReason } from './outcome-text';
import { cacheKey, ResultCache } from './result-cache';
import { runChild } from './run-child';
import { RunReport } from './run-report';
import { RunStop } from './run-stop';
import { cleanTerminalText } from './terminal-text';
import type { PreparedRun, RunContext, RunOutcome, ToolExecutor, ToolRuns } from '../tool-run/contract';
import { DEFAULT_FN_TIMEOUT_SEC, timeLimitOf } from '../tool-run/time-limit';
import type { ServerSecrets } from '../secrets';
import { DEFAULT_MAX_OUTPUT_BYTES } from './capped-output';
import { Sandbox, sandboxExit } from '../sandbox/sandbox';

export interface ToolRunnerOptions {
  /** The server's environment, the source of a transform's base (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The server's secrets, kept out of every transform's environment (default: MCC_TOKEN). */
  secrets?: ServerSecrets;
  /** Cap of the transform's stdout and stderr, each (default 1 MiB). */
  maxOutputBytes?: number;
  /** Bound of the cache_ttl cache (default 256 entries). */
  cacheMaxEntries?: number;
  /** Time between SIGTERM and SIGKILL when a transform is stopped (default 1000 ms). */
  killGraceMs?: number;
  /** Timeout of function tools that set none (default 300 s). */
  fnTimeoutSec?: number;
  /** Time source of cache expiry and of events (tests). */
  clock?: Clock;
  /** Who runs sandboxed: a transform runs in its tool's sandbox (default: only tools whose catalog asks). */
  sandbox?: Sandbox;
}

export class ToolRunner {
  private readonly server: ServerEnv;
  private readonly maxOutputBytes: number;
  private readonly killGraceMs: number;
  private readonly fnTimeoutSec: number;
  private readonly clock: Clock;
  private readonly cache: ResultCache;
  private readonly sandbox: Sandbox;
  private readonly transforms = new Set<(r: StopReason) => void>();
  private disposed = false;

  constructor(opts: ToolRunnerOptions = {}) {
    this.server = serverEnv(opts.baseEnv, opts.secrets);
    this.maxOutputBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.killGraceMs = opts.killGraceMs ?? 1000;
    this.fnTimeoutSec = opts.fnTimeoutSec ?? DEFAULT_FN_TIMEOUT_SEC;
    this.clock = opts.clock ?? systemClock;
    this.cache = new ResultCache(opts.cacheMaxEntries ?? 256, this.clock);
    this.sandbox = opts.sandbox ?? new Sandbox({ hidden: this.server.secrets.files ?? [] });
  }

  /** The executor with this runner's checks, events, cache and transform around it. */
  wrap(inner: ToolExecutor): { run: ToolRuns['run']; dispose(): Promise<void> } {
    return {
      run: (tool, params, ctx) => this.run(inner, tool, params, ctx),
      dispose: async () => {
        this.stopTransforms();
        await inner.dispose?.();
      },
    };
  }

  private async run(inner: ToolExecutor, tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome> {
    const report = new RunReport(tool, ctx, this.clock, () => this.sandbox.label(tool));
    let transform: string | undefined;
    let timeoutSec: number | undefined;
    try {
      if (this.disposed) throw new ToolInputError('the runtime is shutting down');
      timeoutSec = timeLimitOf(tool, this.fnTimeoutSec);
      // Rendered first: a transform that cannot render must stop the call before anything runs.
      transform = tool.transform !== undefined ? render(tool.transform, params, 'transform') : undefined;
    } catch (e) {
      report.refused(inner.describe(tool, params), e);
      throw e;
    }

    const key = tool.cacheTtl && tool.cacheTtl > 0 ? cacheKey(tool.key, params, ctx.store) : undefined;
    const hit = key !== undefined ? this.cache.get(key) : undefined;
    if (hit) {
      report.cached(inner.describe(tool, params), hit.code);
      return { ...hit, durationMs: report.elapsedMs() };
    }

    const runCtx: RunContext = timeoutSec !== undefined ? { ...ctx, timeoutSec } : ctx;
    let prepared: PreparedRun;
    try {
      prepared = inner.prepare(tool, params, runCtx);
    } catch (e) {
      report.refused(inner.describe(tool, params), e);
      throw e;
    }
    report.started(prepared);
    let final: RunOutcome | undefined;
    let failure: string | undefined;
    try {
      const first = await prepared.start();
      final = transform !== undefined && first.code === 0 ? await this.transform(tool, transform, first, runCtx, report) : first;
      if (key !== undefined && final.code === 0) this.cache.set(key, final, tool.cacheTtl as number);
      return final;
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      report.exited(final, failure);
    }
  }

  /**
   * Pipes a successful outcome through the rendered transform: a shell in
   * the tool's environment, cwd and limits, within what is left of the
   * run's time limit. An exec tool's transform reads its stdout; a function
   * tool's reads its value as JSON, as MCC's runner prints it.
   */
  private async transform(tool: ToolDef, script: string, outcome: RunOutcome, ctx: RunContext, report: RunReport): Promise<RunOutcome> {
    const input = tool.kind === 'fn' ? pyJsonDumps(outcome.value) : outcome.stdout;
    const toolEnv = buildToolEnv(tool, ctx.store, this.server);
    let env = toolEnv.env;
    const left = ctx.timeoutSec !== undefined ? Math.max(0, ctx.timeoutSec * 1000 - report.elapsedMs()) : undefined;
    const stop = new RunStop(ctx.signal, left);
    this.transforms.add(stop.halt);
    try {
      // In the tool's own sandbox: a transform is part of its tool.
      const boxed = this.sandbox.prepare(tool, { env, ...(tool.cwd !== undefined ? { cwd: tool.cwd } : {}) });
      if (boxed) env = boxed.env;
      const t = await runChild({
        mode: 'pipe',
        args: limitedShellArgs(tool.limits, script),
        env,
        stdin: input,
        maxOutputBytes: this.maxOutputBytes,
        killGraceMs: this.killGraceMs,
        signal: stop.signal,
        ...(tool.cwd !== undefined ? { cwd: tool.cwd } : {}),
        ...(boxed ? { wrap: boxed.wrap } : {}),
      });
      return transformed(tool, outcome, boxed ? sandboxExit(t) : t, stop.reason, env, report.elapsedMs(), ctx.timeoutSec);
    } catch (e) {
      // The tool ran; only its transform could not start: a failed call, not a refused one.
      const why = `mcc: could not start the transform: ${e instanceof Error ? e.message : String(e)}`;
      return { ...outcome, code: -1, stderr: appendLine(outcome.stderr, why), durationMs: report.elapsedMs() };
    } finally {
      toolEnv.dispose();
      stop.dispose();
      this.transforms.delete(stop.halt);
    }
  }

  private stopTransforms(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const halt of [...this.transforms]) halt('shutdown');
    this.cache.clear();
  }
}

/** The call's outcome after its transform ran: the transform's output, or why it failed. */
function transformed(
  tool: ToolDef,
  before: RunOutcome,
  t: Awaited<ReturnType<typeof runChild>>,
  stopped: StopReason | undefined,
  env: Record<string, string>,
  durationMs: number,
  timeoutSec: number | undefined,
): RunOutcome {
  const out = cleanTerminalText(t.stdout.text()) + markerOf(t.stdout);
  const err = cleanTerminalText(t.stderr.text()) + markerOf(t.stderr);
  const truncated = before.truncated || t.stdout.truncated || t.stderr.truncated ? { truncated: true } : {};
  let stderr = appendLine(before.stderr, err);
  if (stopped || t.aborted) {
    return { code: -1, stdout: out, stderr: appendLine(stderr, `${stopNote(stopped, timeoutSec)} (in the transform)`), durationMs, ...truncated };
  }
  const { code, note } = explainExit(t, tool.limits, `${out}\n${err}`);
  if (code !== 0) {
    stderr = appendLine(stderr, note);
    stderr = appendLine(stderr, `mcc: the transform failed with code ${code}`);
    stderr = appendLine(stderr, notFoundHint(env, code, err));
    return { code, stdout: out, stderr, durationMs, ...truncated };
  }
  // A function tool's answer becomes the transform's text.
  const value = tool.kind === 'fn' ? { value: out } : {};
  return { ...before, ...value, code: 0, stdout: out, stderr, durationMs, ...truncated };
}
