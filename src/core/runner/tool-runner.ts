// What every tool run gets, whatever runs it (exec shell or function): the
// cache_ttl cache and the transform pipeline. One kit wraps the exec and the
// fn executor alike, so both kinds honour `transform` and `cache_ttl` the
// same way, as MCC does.
//
// A run that a transform follows has its `exited` event held back until the
// transform is done, so hosts (terminals, logs) see the call's real end.
import { performance } from 'node:perf_hooks';
import type { ToolDef } from '../catalog/types';
import { pyJsonDumps } from '../catalog/py-json';
import { systemClock, type Clock } from '../host';
import { markerOf } from './capped-output';
import { render } from './command-render';
import { buildToolEnv, serverEnv, type ServerEnv } from './env';
import { ToolInputError } from '../tool-run/errors';
import { explainExit, limitedShellArgs } from './limits';
import { appendLine, lastLine, notFoundHint, stopNote, type StopReason } from './outcome-text';
import { cacheKey, ResultCache } from './result-cache';
import { runChild } from './run-child';
import { RunStop } from './run-stop';
import { cleanTerminalText } from './terminal-text';
import type { RunContext, RunOutcome, RunEvent, RunEventSink, ToolExecutor } from '../tool-run/contract';
import type { ServerSecrets } from '../secrets';

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
  /** Time source of cache expiry and of events (tests). */
  clock?: Clock;
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;

export class ToolRunner {
  private readonly server: ServerEnv;
  private readonly maxOutputBytes: number;
  private readonly killGraceMs: number;
  private readonly clock: Clock;
  private readonly cache: ResultCache;
  private readonly transforms = new Set<(r: StopReason) => void>();
  private disposed = false;

  constructor(opts: ToolRunnerOptions = {}) {
    this.server = serverEnv(opts.baseEnv, opts.secrets);
    this.maxOutputBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    this.killGraceMs = opts.killGraceMs ?? 1000;
    this.clock = opts.clock ?? systemClock;
    this.cache = new ResultCache(opts.cacheMaxEntries ?? 256, this.clock);
  }

  /** The executor with this kit's cache and transform around it. */
  wrap(inner: ToolExecutor): ToolExecutor {
    return {
      run: (tool, params, ctx) => this.run(inner, tool, params, ctx),
      describe: inner.describe ? (tool, params) => inner.describe!(tool, params) : undefined,
      dispose: async () => {
        this.stopTransforms();
        await inner.dispose?.();
      },
    };
  }

  private async run(inner: ToolExecutor, tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome> {
    const t0 = performance.now();
    let transform: string | undefined;
    try {
      if (this.disposed) throw new ToolInputError('the runtime is shutting down');
      // Rendered first: a transform that cannot render must stop the call before anything runs.
      transform = tool.transform !== undefined ? render(tool.transform, params, 'transform') : undefined;
    } catch (e) {
      this.announce(inner, tool, params, ctx);
      ctx.events.emit({ type: 'exited', runId: ctx.runId, code: -1, durationMs: 0, error: e instanceof Error ? e.message : String(e) });
      throw e;
    }

    const key = tool.cacheTtl && tool.cacheTtl > 0 ? cacheKey(tool.key, params, ctx.store) : undefined;
    const hit = key !== undefined ? this.cache.get(key) : undefined;
    if (hit) {
      this.announce(inner, tool, params, ctx);
      ctx.events.emit({ type: 'exited', runId: ctx.runId, code: hit.code, durationMs: Math.round(performance.now() - t0), cached: true });
      return { ...hit, durationMs: Math.round(performance.now() - t0) };
    }

    if (transform === undefined) {
      const outcome = await inner.run(tool, params, ctx);
      if (key !== undefined && outcome.code === 0) this.cache.set(key, outcome, tool.cacheTtl as number);
      return outcome;
    }

    const held = new HeldExit(ctx.events);
    let final: RunOutcome | undefined;
    let failure: string | undefined;
    try {
      const first = await inner.run(tool, params, { ...ctx, events: held });
      final = first.code === 0 ? await this.transform(tool, transform, first, ctx, t0) : first;
      if (key !== undefined && final.code === 0) this.cache.set(key, final, tool.cacheTtl as number);
      return final;
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      held.release(final, failure, t0);
    }
  }

  /** A `started` event for a run the inner executor does not start itself (a cache hit, a refused call). */
  private announce(inner: ToolExecutor, tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): void {
    const how = inner.describe?.(tool, params) ?? { command: tool.key, mode: 'pipe' as const };
    ctx.events.emit({ type: 'started', runId: ctx.runId, toolKey: tool.key, command: how.command, caller: ctx.caller, mode: how.mode, at: this.clock.now() });
  }

  /**
   * Pipes a successful outcome through the rendered transform: a shell in
   * the tool's environment, cwd and limits, within what is left of the
   * tool's timeout. An exec tool's transform reads its stdout; a function
   * tool's reads its value as JSON, as MCC's runner prints it.
   */
  private async transform(tool: ToolDef, script: string, outcome: RunOutcome, ctx: RunContext, t0: number): Promise<RunOutcome> {
    const input = tool.kind === 'fn' ? pyJsonDumps(outcome.value) : outcome.stdout;
    const toolEnv = buildToolEnv(tool, ctx.store, this.server);
    const env = toolEnv.env;
    const timeout = tool.limits.timeout;
    // What is left of the tool's own time budget.
    const stop = new RunStop(ctx.signal, timeout !== undefined ? Math.max(0, timeout * 1000 - (performance.now() - t0)) : undefined);
    this.transforms.add(stop.halt);
    try {
      const t = await runChild({
        mode: 'pipe',
        args: limitedShellArgs(tool.limits, script),
        env,
        stdin: input,
        maxOutputBytes: this.maxOutputBytes,
        killGraceMs: this.killGraceMs,
        signal: stop.signal,
        ...(tool.cwd !== undefined ? { cwd: tool.cwd } : {}),
      });
      return transformed(tool, outcome, t, stop.reason, env, t0);
    } catch (e) {
      // The tool ran; only its transform could not start: a failed call, not a refused one.
      const why = `mcc: could not start the transform: ${e instanceof Error ? e.message : String(e)}`;
      return { ...outcome, code: -1, stderr: appendLine(outcome.stderr, why), durationMs: Math.round(performance.now() - t0) };
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
  t0: number,
): RunOutcome {
  const out = cleanTerminalText(t.stdout.text()) + markerOf(t.stdout);
  const err = cleanTerminalText(t.stderr.text()) + markerOf(t.stderr);
  const truncated = before.truncated || t.stdout.truncated || t.stderr.truncated ? { truncated: true } : {};
  const durationMs = Math.round(performance.now() - t0);
  let stderr = appendLine(before.stderr, err);
  if (stopped || t.aborted) {
    return { code: -1, stdout: out, stderr: appendLine(stderr, `${stopNote(stopped, tool.limits.timeout)} (in the transform)`), durationMs, ...truncated };
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


/** Passes events through, except `exited`, which waits for release(). */
class HeldExit implements RunEventSink {
  private exit: Extract<RunEvent, { type: 'exited' }> | undefined;

  constructor(private readonly sink: RunEventSink) {}

  emit(event: RunEvent): void {
    if (event.type === 'exited') this.exit = event;
    else this.sink.emit(event);
  }

  /** Announces the end with the call's final code (the transform's, if it failed). */
  release(outcome: RunOutcome | undefined, failure: string | undefined, t0: number): void {
    const held = this.exit;
    if (!held) return;
    const code = outcome?.code ?? -1;
    const error = outcome ? (code === 0 ? undefined : lastLine(outcome.stderr)) : (held.error ?? failure ?? 'the run failed inside the runtime');
    this.sink.emit({ type: 'exited', runId: held.runId, code, durationMs: Math.round(performance.now() - t0), ...(error ? { error } : {}) });
  }
}
