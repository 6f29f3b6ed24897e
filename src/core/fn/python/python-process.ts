// One run of mcc_runner.py: the request as JSON on stdin, the answer on fd 3
// (a pipe of its own, so nothing the tool prints can corrupt it), stdout and
// stderr reported as they come. The child leads its own process group, so a
// timeout or cancel ends it together with anything it started, and so does
// its exit: nothing the tool started in the background outlives the call.
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Limits } from '../../catalog/types';
import { hasUnixLimits, limitedShellArgs } from '../../runner/limits';
import { killProcessTree } from '../../runner/process-tree';
import { shellQuote } from '../../template/quote';
import { pythonRunnerPath } from '../assets';
import { stopReasonOf } from '../../tool-run/errors';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../runner/capped-output';
import { launchOf, type Wrap } from '../../sandbox/launch-of';

export type StopReason = 'timeout' | 'cancelled' | 'shutdown';

export interface PythonRunSpec {
  interpreter: string;
  mode: 'introspect' | 'execute';
  request: unknown;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;
  /** Output kept per stream (default 1 MiB). */
  maxOutputBytes?: number;
  /** Unix limits (mem_mb, cpu_sec, ...), set by /bin/sh before it execs the interpreter. */
  limits?: Limits;
  /** The sandbox's wrapper of the command, when the tool has one. */
  wrap?: Wrap;
}

export interface PythonRunResult {
  /** The runner's answer (JSON text), undefined when it wrote none. */
  result?: string;
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stopped?: StopReason;
  /** A warm runner finished the call (both fences came) but wrote no answer; it was killed. */
  unanswered?: boolean;
}

/** A running child that a shutdown can stop. */
export interface PythonRunHandle {
  stop(reason: StopReason): void;
  done: Promise<PythonRunResult>;
}

const KILL_GRACE_MS = 300;
// After the interpreter exits, how long a grandchild may keep our pipes open.
const DRAIN_MS = 300;

/**
 * Starts the Python runner, one-shot or warm: a process group of its own
 * (so it can be stopped whole), fd 3 for its answers, and inside the tool's
 * sandbox when `wrap` is given.
 */
export function spawnRunner(file: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; wrap?: PythonRunSpec['wrap'] }) {
  const run = launchOf(file, args, o.wrap);
  return spawn(run.file, run.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
}

/** `done` rejects (ENOENT etc.) only when the interpreter cannot be started at all. */
export function startPython(spec: PythonRunSpec): PythonRunHandle {
  const [bare, bareArgs] = commandLine(spec);
  const child = spawnRunner(bare, bareArgs, spec);
  const cap = spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  let stopped: StopReason | undefined;
  let exited = false;
  const stop = (reason: StopReason): void => {
    if (stopped || exited || child.pid === undefined) return;
    stopped = reason;
    void killProcessTree(child.pid, KILL_GRACE_MS, false);
  };

  const done = new Promise<PythonRunResult>((resolve, reject) => {
    const out = collect(child.stdout, cap, (d) => spec.onOutput?.('stdout', d));
    const err = collect(child.stderr, cap, (d) => spec.onOutput?.('stderr', d));
    const resultPipe = child.stdio[3] as Readable;
    const res = collect(resultPipe, Number.MAX_SAFE_INTEGER);
    const timer = setTimeout(() => stop('timeout'), spec.timeoutMs);
    const onAbort = (): void => stop(stopReasonOf(spec.signal));
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();

    child.once('error', (e) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      // Whatever the tool left running in its group ends with the interpreter,
      // as after an exec run; the call is over once it is gone.
      const reaped = child.pid !== undefined ? killProcessTree(child.pid, KILL_GRACE_MS, true, spec.wrap ? {} : undefined).catch(() => false) : Promise.resolve(true);
      void Promise.race([Promise.all([out.ended, err.ended, res.ended]), sleep(DRAIN_MS)]).then(async () => {
        await reaped;
        for (const s of [child.stdout, child.stderr, resultPipe]) s?.destroy();
        const text = res.text();
        resolve({
          ...(text !== '' ? { result: text } : {}),
          stdout: out.text(),
          stderr: err.text(),
          code,
          signal,
          ...(stopped ? { stopped } : {}),
        });
      });
    });
    child.stdin.on('error', () => undefined); // the tool may exit without reading
    child.stdin.end(JSON.stringify(spec.request));
  });
  return { stop, done };
}

function commandLine(spec: PythonRunSpec): [string, string[]] {
  // -B: no __pycache__ litter in the tool's folder; -u: output events as printed.
  const args = ['-B', '-u', pythonRunnerPath(), spec.mode, '--result-fd', '3'];
  if (!spec.limits || !hasUnixLimits(spec.limits) || process.platform === 'win32') return [spec.interpreter, args];
  const command = ['exec', spec.interpreter, ...args].map(shellQuote).join(' ');
  return ['/bin/sh', limitedShellArgs(spec.limits, command)];
}

interface Collected {
  text(): string;
  ended: Promise<void>;
}

function collect(stream: Readable | null, cap: number, onData?: (d: string) => void): Collected {
  const chunks: string[] = [];
  let size = 0;
  let cut = 0;
  const ended = new Promise<void>((resolve) => {
    if (!stream) return resolve();
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => {
      onData?.(d);
      if (size + d.length <= cap) {
        chunks.push(d);
        size += d.length;
      } else cut += d.length;
    });
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
  return {
    text: () => chunks.join('') + (cut > 0 ? `\n[... ${cut} more characters cut]` : ''),
    ended,
  };
}

/** A pause that never keeps the process alive on its own. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
