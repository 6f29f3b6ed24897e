// Runs one `/bin/sh` child in its own process group, in either run mode,
// and collects its output under a cap. The caller's abort signal kills the
// whole tree; when the child ends by itself, whatever it left running in its
// group is ended too, so no call leaves an orphan behind.
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { CappedOutput } from './capped-output';
import { launchHere, type LaunchControl, type LaunchEvents, type LaunchRequest, type Launcher, type PtyModule } from './launch';
import { killProcessTree } from './process-tree';
import { drainedShellArgs, newEndToken } from './pty-drain';
import { defaultLauncher, SPAWNER_NEVER_STARTED } from './spawner-client';
import { TokenScanner } from './token-scanner';
import { launchOf, type Wrap } from '../sandbox/launch-of';

export type { PtyModule } from './launch';

/** node-pty could not start a terminal (nothing ran; pipe mode may still work). */
export class PtySpawnError extends Error {
  override readonly name = 'PtySpawnError';
}
export type RunMode = 'pty' | 'pipe';

export interface ChildSpec {
  mode: RunMode;
  /** The loaded node-pty module; required in pty mode. */
  pty?: PtyModule;
  /** Arguments of /bin/sh. */
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** Pipe mode only: written to stdin, which is then closed. Absent: stdin is /dev/null. */
  stdin?: string;
  maxOutputBytes: number;
  killGraceMs: number;
  /** Abort = stop the run: the whole process tree is killed. */
  signal: AbortSignal;
  onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;
  /** The sandbox's wrapper of the command (sandbox/sandbox.ts); absent: /bin/sh runs as it is. */
  wrap?: Wrap;
  /** Who starts the child (default: the server's spawner, spawner-client.ts). */
  launcher?: Launcher;
}

export interface ChildResult {
  pid: number;
  /** Exit code, when it exited. */
  code: number | null;
  /** Signal number, when a signal ended it. */
  signal: number | null;
  stdout: CappedOutput;
  /** Empty in pty mode: a terminal has one output stream. */
  stderr: CappedOutput;
  /** True when the abort signal stopped it. */
  aborted: boolean;
  /** True when it ran in a terminal (one merged output stream). */
  terminal: boolean;
}

const PTY_COLS = 200;
const PTY_ROWS = 50;
// How long to wait for stdio to close once the group is dead; only an
// escaped process that still holds our pipe can make this wait matter.
const CLOSE_WAIT_MS = 1000;
const SHELL = '/bin/sh';

export function runChild(spec: ChildSpec): Promise<ChildResult> {
  return spec.mode === 'pty' ? runInPty(spec) : runWithPipes(spec);
}

function signalNumber(sig: string | number | null): number | null {
  if (typeof sig === 'number') return sig === 0 ? null : sig;
  return sig ? (constants.signals[sig as NodeJS.Signals] ?? null) : null;
}

function launcherOf(spec: ChildSpec): Launcher {
  return spec.launcher ?? defaultLauncher(() => {
    if (!spec.pty) throw new PtySpawnError('pty mode needs node-pty');
    return spec.pty;
  });
}

/**
 * What every run shares: the launch, its pid (known once it is spawned),
 * the abort that kills the whole tree, and a spawner that never started
 * (the run starts here instead, see spawner-client.ts).
 */
interface Started {
  pid(): number;
  /** A sandboxed run: how its end is waited for (process-tree.ts). */
  sandbox(): { init?: number } | undefined;
  aborted(): boolean;
  /** The kill the abort started, if any. */
  killing(): Promise<unknown> | undefined;
  write(data: string): void;
  control(): LaunchControl;
}

type Handlers = Pick<LaunchEvents, 'data' | 'exit'> & { close?: () => void; settle: { resolve(r: ChildResult | Promise<ChildResult>): void; reject(e: unknown): void }; retry(): Promise<ChildResult> };

function start(spec: ChildSpec, req: LaunchRequest, h: Handlers): Started {
  let pid: number | undefined;
  let init: number | undefined;
  let exited = false;
  let aborted = false;
  let killing: Promise<unknown> | undefined;
  const onAbort = (): void => {
    if (exited) return;
    aborted = true;
    if (pid !== undefined) killing ??= killProcessTree(pid, spec.killGraceMs, false);
  };
  const done = (): void => spec.signal.removeEventListener('abort', onAbort);
  const control = launcherOf(spec)(req, {
    spawned: (p) => {
      pid = p;
      if (aborted) onAbort();
    },
    init: (p) => (init = p),
    data: h.data,
    exit: (code, sig) => {
      exited = true;
      done();
      h.exit(code, sig);
    },
    close: () => h.close?.(),
    error: (e) => {
      done();
      // Lost after the end was reported: the run finishes as it is (its streams close or time out).
      if (exited) return;
      if (pid === undefined && e.code === SPAWNER_NEVER_STARTED) return h.settle.resolve(h.retry());
      if (e.pty) return h.settle.reject(new PtySpawnError(e.message));
      if (pid === undefined) return h.settle.reject(Object.assign(new Error(e.message), e.code ? { code: e.code } : {}));
      // Lost while it ran: nobody reports its end, so it is ended here.
      exited = true;
      const p = pid;
      void killProcessTree(p, 0, false).then(() => h.settle.reject(new Error(e.message)));
    },
  });
  if (spec.signal.aborted) onAbort();
  else spec.signal.addEventListener('abort', onAbort, { once: true });
  return {
    pid: () => pid as number,
    sandbox: () => (spec.wrap ? (init !== undefined ? { init } : {}) : undefined),
    aborted: () => aborted,
    killing: () => killing,
    write: (d) => control.write(d),
    control: () => control,
  };
}

/** A launcher that starts the child in this process. */
function here(spec: ChildSpec): ChildSpec {
  return { ...spec, launcher: (req, ev) => launchHere(req, ev, () => spec.pty as PtyModule) };
}

function runWithPipes(spec: ChildSpec): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const run = launchOf(SHELL, spec.args, spec.wrap);
    const stdout = new CappedOutput(spec.maxOutputBytes);
    const stderr = new CappedOutput(spec.maxOutputBytes);
    const sinks = { stdout: collect('stdout', stdout, spec), stderr: collect('stderr', stderr, spec) };
    let closed = false;
    let onClosed = (): void => undefined;
    const closedPromise = new Promise<void>((r) => (onClosed = r));
    const req: LaunchRequest = { mode: 'pipe', file: run.file, args: run.args, env: spec.env, sandboxed: spec.wrap !== undefined, ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}), ...(spec.stdin !== undefined ? { stdin: spec.stdin } : {}) };
    const s: Started = start(spec, req, {
      data: (stream, d) => sinks[stream](typeof d === 'string' ? Buffer.from(d) : d),
      close: () => ((closed = true), onClosed()),
      settle: { resolve, reject },
      retry: () => runWithPipes(here(spec)),
      exit: (code, sig) => {
        const pid = s.pid();
        void (async () => {
          await endTree(s, pid, spec);
          if (!closed) await Promise.race([closedPromise, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS))]);
          s.control().end();
          resolve({ pid, code, signal: signalNumber(sig), stdout, stderr, aborted: s.aborted(), terminal: false });
        })();
      },
    });
  });
}

/** After the command exited: the abort's kill finished, then whatever it left behind ended (pipes and terminals alike). */
async function endTree(s: Started, pid: number, spec: ChildSpec): Promise<void> {
  await s.killing();
  await killProcessTree(pid, spec.killGraceMs, true, s.sandbox());
}

/** One stream of the child, kept under the cap and reported as it comes. */
function collect(stream: 'stdout' | 'stderr', into: CappedOutput, spec: ChildSpec): (b: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  return (b) => {
    const kept = into.push(b);
    if (kept && spec.onOutput) {
      const text = decoder.write(kept);
      if (text) spec.onOutput(stream, text);
    }
  };
}

function runInPty(spec: ChildSpec): Promise<ChildResult> {
  if (!spec.pty && !spec.launcher) return Promise.reject(new PtySpawnError('pty mode needs node-pty'));
  const token = newEndToken();
  return new Promise((resolve, reject) => {
    // The whole drain script runs inside the sandbox: the terminal is the tool's own.
    const run = launchOf(SHELL, drainedShellArgs(token, spec.args), spec.wrap);
    const term = { name: spec.env.TERM ?? 'xterm-256color', cols: PTY_COLS, rows: PTY_ROWS };
    const req: LaunchRequest = { mode: 'pty', file: run.file, args: run.args, env: spec.env, cwd: spec.cwd ?? process.cwd(), term, sandboxed: spec.wrap !== undefined };
    const output = readTerminal(spec, token, (d) => s.write(d));
    const s: Started = start(spec, req, {
      data: (_stream, d) => output.feed(typeof d === 'string' ? d : d.toString('utf8')),
      settle: { resolve, reject },
      retry: () => runInPty(here(spec)),
      exit: (exitCode, signal) => {
        const pid = s.pid();
        void (async () => {
          await endTree(s, pid, spec);
          const stdout = output.end();
          s.control().end();
          const sig = signalNumber(signal);
          resolve({ pid, code: sig === null ? exitCode : null, signal: sig, stdout, stderr: new CappedOutput(0), aborted: s.aborted(), terminal: true });
        })();
      },
    });
    // The terminal is the tool's stdin; an EOF up front means a tool that
    // reads it gets "no input" instead of waiting for the timeout.
    s.write('\x04');
  });
}

/**
 * A terminal's output up to the drain script's end token (pty-drain.ts),
 * kept under the cap and reported as it comes; `end` returns it once the
 * terminal has exited.
 */
function readTerminal(spec: ChildSpec, token: string, write: (d: string) => void): { feed(d: string): void; end(): CappedOutput } {
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const scanner = new TokenScanner(token);
  let ended = false;
  const take = (d: string): void => {
    if (d === '') return;
    const b = Buffer.from(d, 'utf8');
    const kept = stdout.push(b);
    if (kept && spec.onOutput) spec.onOutput('stdout', kept.length === b.length ? d : kept.toString('utf8'));
  };
  return {
    feed: (d) => {
      if (ended) return;
      const wasFound = scanner.found;
      take(scanner.feed(d));
      // Everything before the token has been read: the terminal may close now.
      if (scanner.found && !wasFound) write(`${token}\n`);
    },
    end: () => {
      if (!ended) take(scanner.flush());
      ended = true;
      return stdout;
    },
  };
}
