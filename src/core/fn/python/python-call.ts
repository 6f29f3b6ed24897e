// One call of a Python fn tool: a runner of the tool's interpreter in the
// tool's folder, answered as an ExecOutcome. The runner is a warm process
// from the pool (see python-pool.ts: a call may wait for one to free), else
// a subprocess of its own. Tools with Unix limits (mem_mb, cpu_sec, fsize_mb, nofile) always
// get their own: a limit applies to a whole process and must never stay on
// one that later serves other calls.
import { statSync } from 'node:fs';
import { constants } from 'node:os';
import type { FnTool } from '../../catalog/types';
import { ToolInputError } from '../../runner/errors';
import { hasUnixLimits, memoryExitNote, signalNote } from '../../runner/limits';
import { appendLine } from '../../runner/outcome-text';
import type { CallContext, ExecOutcome } from '../../runner/types';
import { pythonToolEnv, toolFolder } from '../fn-env';
import { PrintedOutput } from '../printed-output';
import { outcomeSince } from '../outcome';
import { missingInterpreterMessage, resolveInterpreter } from './interpreter';
import type { PythonPool } from './python-pool';
import { startPython, type PythonRunHandle, type PythonRunResult } from './python-process';

export interface PythonCallSettings {
  baseEnv: NodeJS.ProcessEnv;
  timeoutSec: number;
  /** Registers the running child so that a shutdown can stop it. */
  track: (handle: PythonRunHandle) => () => void;
  /** Warm runners; without it every call starts an interpreter. */
  pool?: PythonPool;
}

type RunnerAnswer =
  | { ok: true; value: unknown; takesContext: boolean; context?: Record<string, unknown>; contextError?: string }
  | { ok: false; stage: 'import' | 'call' | 'result'; error: string; traceback: string };

export async function callPythonTool(
  tool: FnTool,
  params: Record<string, unknown>,
  ctx: CallContext,
  s: PythonCallSettings,
  t0: number,
): Promise<ExecOutcome> {
  const interpreter = interpreterOf(tool, s.baseEnv);
  const cwd = toolFolder(tool);
  checkFolder(cwd);
  const printed = new PrintedOutput(ctx);
  const common = {
    interpreter,
    partition: warmPartition(ctx),
    request: { target: tool.target, kwargs: params, context: ctx.store },
    cwd,
    env: pythonToolEnv(tool, ctx.store, s.baseEnv),
    timeoutMs: s.timeoutSec * 1000,
    onOutput: printed.add,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const oneShot = (): PythonRunHandle => startPython({ ...common, mode: 'execute', limits: tool.limits });
  const handle = s.pool && !hasUnixLimits(tool.limits) ? s.pool.start(common, oneShot) : oneShot();
  const untrack = s.track(handle);
  let r: PythonRunResult;
  try {
    r = await handle.done;
  } catch (e) {
    throw new ToolInputError(`cannot start Python interpreter ${interpreter}: ${(e as Error).message}`);
  } finally {
    untrack();
  }
  const done = outcomeSince(t0);

  if (r.stopped) {
    const note = r.stopped === 'timeout' ? `timeout after ${s.timeoutSec}s` : r.stopped === 'shutdown' ? 'cancelled: the server is shutting down' : 'cancelled';
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

/**
 * Who may share a warm process (see WarmCallSpec.partition): the user, and
 * for anonymous callers, who all share one user name, also the session.
 */
export function warmPartition(ctx: Pick<CallContext, 'caller' | 'store'>): string {
  const storeUser = typeof ctx.store.user === 'string' ? ctx.store.user : '';
  const anonymous = ctx.caller.user === 'anonymous' || storeUser === 'anonymous';
  return JSON.stringify(anonymous ? [ctx.caller.user, storeUser, ctx.caller.sessionKey] : [ctx.caller.user, storeUser]);
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
