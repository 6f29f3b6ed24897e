// One call of a Python fn tool: a runner of the tool's interpreter in the
// tool's folder, answered as an RunOutcome. The runner is a warm process
// from the pool (see python-pool.ts: a call may wait for one to free), else
// a subprocess of its own. Tools with Unix limits (mem_mb, cpu_sec, fsize_mb, nofile) always
// get their own: a limit applies to a whole process and must never stay on
// one that later serves other calls.
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { constants } from 'node:os';
import type { FnTool } from '../../catalog/types';
import { ToolInputError } from '../../tool-run/errors';
import { hasUnixLimits, memoryExitNote, signalNote } from '../../runner/limits';
import { appendLine } from '../../runner/outcome-text';
import type { RunContext, RunOutcome } from '../../tool-run/contract';
import { pythonToolEnv, toolFolder, warmPartition, withoutContextVars } from '../fn-env';
import { pythonRunnerPath } from '../assets';
import { sandboxExit, type Sandbox } from '../../sandbox/sandbox';
import { profileKey } from '../../sandbox/profile';
import type { WarmSandbox } from './warm-key';
import type { ServerEnv } from '../../runner/env';
import { PrintedOutput } from '../printed-output';
import { outcomeSince } from '../outcome';
import { missingInterpreterMessage, resolveInterpreter } from './interpreter';
import type { PythonPool } from './python-pool';
import { startPython, type PythonRunHandle, type PythonRunResult } from './python-process';

export { warmPartition } from '../fn-env';

export interface PythonCallSettings {
  /** The server's environment and secrets: the tool's base, and PATH to find the interpreter. */
  server: ServerEnv;
  timeoutSec: number;
  /** Registers the running child so that a shutdown can stop it. */
  track: (handle: PythonRunHandle) => () => void;
  /** Warm runners; without it every call starts an interpreter. */
  pool?: PythonPool;
  /** Who runs sandboxed; absent: nobody. */
  sandbox?: Sandbox;
}

type RunnerAnswer =
  | { ok: true; value: unknown; takesContext: boolean; context?: Record<string, unknown>; contextError?: string }
  | { ok: false; stage: 'import' | 'call' | 'result'; error: string; traceback: string };

export async function callPythonTool(
  tool: FnTool,
  params: Record<string, unknown>,
  ctx: RunContext,
  s: PythonCallSettings,
  t0: number,
): Promise<RunOutcome> {
  const interpreter = interpreterOf(tool, s.server.vars);
  const cwd = toolFolder(tool);
  checkFolder(cwd);
  const toolEnv = pythonToolEnv(tool, ctx.store, s.server);
  const printed = new PrintedOutput(ctx);
  let r: PythonRunResult;
  try {
    r = await run(tool, params, ctx, s, { interpreter, cwd, env: toolEnv.env, onOutput: printed.add });
  } finally {
    toolEnv.dispose();
  }
  return answerOf(tool, r, { interpreter, printed, timeoutSec: s.timeoutSec }, t0);
}

// In a warm runner when one is free, else in one of its own. The store goes
// over the pipe as `context`, whole, whatever the environment could carry.
async function run(
  tool: FnTool,
  params: Record<string, unknown>,
  ctx: RunContext,
  s: PythonCallSettings,
  where: { interpreter: string; cwd: string; env: Record<string, string>; onOutput: (stream: 'stdout' | 'stderr', data: string) => void },
): Promise<PythonRunResult> {
  const boxes = sandboxesOf(tool, s.sandbox, where);
  const common = {
    ...where,
    env: boxes?.oneShot.env ?? where.env,
    partition: warmPartition(ctx),
    request: { target: tool.target, kwargs: params, context: ctx.store },
    timeoutMs: s.timeoutSec * 1000,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const oneShot = (): PythonRunHandle => startPython({ ...common, mode: 'execute', limits: tool.limits, ...(boxes ? { wrap: boxes.oneShot.wrap } : {}) });
  const handle = s.pool && !hasUnixLimits(tool.limits) ? s.pool.start({ ...common, ...(boxes ? { sandbox: boxes.warm() } : {}) }, oneShot) : oneShot();
  const untrack = s.track(handle);
  try {
    const r = await handle.done;
    return boxes ? sandboxedResult(r) : r;
  } catch (e) {
    throw new ToolInputError(`cannot start Python interpreter ${where.interpreter}: ${(e as Error).message}`);
  } finally {
    untrack();
  }
}

/**
 * The call's sandbox, when its tool has one: for a one-shot runner, and
 * (made only when asked) for a warm one, which starts without the caller's
 * MCC_CTX* and so without the store's file. The runner script and the
 * interpreter's own prefix are visible read-only.
 */
function sandboxesOf(tool: FnTool, sandbox: Sandbox | undefined, where: { interpreter: string; cwd: string; env: Record<string, string> }) {
  if (!sandbox?.profileOf(tool)) return undefined;
  const extraRead = pythonSandboxReads(where.interpreter);
  const make = (env: Record<string, string>) => sandbox.prepare(tool, { env, cwd: where.cwd, extraRead });
  const oneShot = make(where.env);
  if (!oneShot) return undefined;
  const warm = (): WarmSandbox => {
    const w = make(withoutContextVars(where.env)) ?? oneShot;
    return { key: profileKey(w.profile), wrap: w.wrap };
  };
  return { oneShot, warm };
}

/** A runner that died of a signal inside bwrap (exit 128+N) reads as that death. */
function sandboxedResult(r: PythonRunResult): PythonRunResult {
  const number = r.signal ? (constants.signals[r.signal] ?? null) : null;
  const read = sandboxExit({ code: r.code, signal: number });
  if (read.signal === null || r.signal) return r;
  const name = Object.entries(constants.signals).find(([, v]) => v === read.signal)?.[0] as NodeJS.Signals | undefined;
  return name ? { ...r, code: null, signal: name } : r;
}

/** What a Python runner needs to see in a sandbox: the runner script and the interpreter's prefixes. */
export function pythonSandboxReads(interpreter: string): string[] {
  return [dirname(pythonRunnerPath()), ...interpreterPrefixes(interpreter)];
}

/** bin/.. of the interpreter as named and as it really is (a venv, a pyenv version). */
function interpreterPrefixes(interpreter: string): string[] {
  const out = [dirname(dirname(interpreter))];
  try {
    out.push(dirname(dirname(realpathSync(interpreter))));
  } catch {
    // the start will say it is missing
  }
  // A prefix of / (python at /bin/python3) would show the whole host.
  return [...new Set(out)].filter((p) => p !== '/' && p !== '');
}

function answerOf(
  tool: FnTool,
  r: PythonRunResult,
  { interpreter, printed, timeoutSec }: { interpreter: string; printed: PrintedOutput; timeoutSec: number },
  t0: number,
): RunOutcome {
  const done = outcomeSince(t0, printed);

  if (r.stopped) {
    const note = r.stopped === 'timeout' ? `timeout after ${timeoutSec}s` : r.stopped === 'shutdown' ? 'cancelled: the server is shutting down' : 'cancelled';
    return done(-1, r.stdout, appendLine(r.stderr, note));
  }
  const answer = parseAnswer(r.result);
  if (!answer) {
    const signum = r.signal ? constants.signals[r.signal] : undefined;
    const code = signum !== undefined ? -signum : r.code && r.code !== 0 ? r.code : 1;
    const note =
      signum !== undefined
        ? signalNote(signum, tool.limits)
        : r.unanswered
          ? 'the Python runner answered without a result (the call ended, but no answer came on its channel; the process was killed)'
          : r.result !== undefined
            ? 'the Python runner answered without a result (a malformed answer)'
            : `the Python runner exited with code ${String(r.code)} without a result`;
    return done(code, r.stdout, appendLine(r.stderr, note));
  }
  if (!answer.ok) {
    const prefix = answer.stage === 'import' ? `cannot import '${tool.target}' with ${interpreter}:\n` : '';
    let stderr = appendLine(r.stderr, prefix + (answer.traceback.trim() !== '' ? answer.traceback.trimEnd() : answer.error));
    stderr = appendLine(stderr, memoryExitNote(1, answer.error, tool.limits));
    return done(1, r.stdout, stderr);
  }
  let stderr = printed.all();
  if (answer.contextError) stderr = appendLine(stderr, `mcc: the context was not written back: ${answer.contextError}`);
  const contextOut = answer.takesContext && answer.context ? { contextOut: answer.context } : {};
  return done(0, JSON.stringify(answer.value), stderr, { value: answer.value, ...contextOut });
}

/** The runner's answer, or undefined when there is none or it has not the runner's shape. */
export function parseAnswer(text: string | undefined): RunnerAnswer | undefined {
  if (text === undefined) return undefined;
  let a: unknown;
  try {
    a = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return undefined;
  const o = a as Record<string, unknown>;
  if (o.ok === true) {
    if (!('value' in o) || typeof o.takesContext !== 'boolean') return undefined;
    if (o.context !== undefined && (typeof o.context !== 'object' || o.context === null || Array.isArray(o.context))) return undefined;
    if (o.contextError !== undefined && typeof o.contextError !== 'string') return undefined;
    return o as RunnerAnswer;
  }
  if (o.ok === false) {
    if (!['import', 'call', 'result'].includes(o.stage as string)) return undefined;
    if (typeof o.error !== 'string' || typeof o.traceback !== 'string') return undefined;
    return o as RunnerAnswer;
  }
  return undefined;
}

// Normally already absolute (the resolver found it at load time).
const found = new Map<string, string>();
function interpreterOf(tool: FnTool, baseEnv: NodeJS.ProcessEnv): string {
  const wanted = tool.python ?? 'python3';
  const key = `${tool.catalogDir}\0${wanted}`;
  const hit = found.get(key);
  if (hit) return hit;
  const p = resolveInterpreter(wanted, tool.catalogDir, baseEnv);
  if (!p) throw new ToolInputError(missingInterpreterMessage(wanted, baseEnv));
  found.set(key, p);
  return p;
}

function checkFolder(path: string): void {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new ToolInputError(`cwd ${path} does not exist`);
  }
  if (!isDir) throw new ToolInputError(`cwd ${path} is not a folder`);
}
