// Runs one `/bin/sh` child in its own process group, in either run mode,
// and collects its output under a cap. The caller's abort signal kills the
// whole tree; when the child ends by itself, whatever it left running in its
// group is ended too, so no call leaves an orphan behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { CappedOutput } from './capped-output';
import { killProcessTree } from './process-tree';
import { drainedShellArgs, newEndToken } from './pty-drain';
import { TokenScanner } from './token-scanner';

export type PtyModule = typeof import('node-pty');

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
  wrap?: (file: string, args: readonly string[]) => { file: string; args: string[] };
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

export function runChild(spec: ChildSpec): Promise<ChildResult> {
  return spec.mode === 'pty' ? runInPty(spec) : runWithPipes(spec);
}

function signalNumber(name: NodeJS.Signals | null): number | null {
  return name ? (constants.signals[name] ?? null) : null;
}

/** What is started: /bin/sh with these arguments, inside the sandbox when there is one. */
function launch(spec: ChildSpec, args: string[]): { file: string; args: string[] } {
  return spec.wrap ? spec.wrap('/bin/sh', args) : { file: '/bin/sh', args };
}

function runWithPipes(spec: ChildSpec): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const run = launch(spec, spec.args);
    const child = spawn(run.file, run.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true, // own session and process group: pid = pgid
      stdio: [spec.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const { stdout, stderr } = collectPipes(child, spec);
    if (spec.stdin !== undefined && child.stdin) {
      child.stdin.on('error', () => undefined); // EPIPE: the tool did not read it all
      child.stdin.end(spec.stdin);
    }

    let aborted = false;
    let killing: Promise<unknown> | undefined;
    const onAbort = (): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      aborted = true;
      killing = killProcessTree(child.pid, spec.killGraceMs, false);
    };
    let closed = false;
    const closedPromise = new Promise<void>((r) => child.on('close', () => ((closed = true), r())));

    child.on('error', (e) => {
      spec.signal.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.on('exit', (code, sig) => {
      spec.signal.removeEventListener('abort', onAbort);
      const pid = child.pid as number;
      void (async () => {
        await killing;
        await killProcessTree(pid, spec.killGraceMs, true);
        await Promise.race([closedPromise, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS))]);
        if (!closed) {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }
        resolve({ pid, code, signal: signalNumber(sig), stdout, stderr, aborted, terminal: false });
      })();
    });
    if (child.pid !== undefined) {
      if (spec.signal.aborted) onAbort();
      else spec.signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

/** The child's stdout and stderr, kept under the cap and reported as they come. */
function collectPipes(child: ChildProcess, spec: ChildSpec): { stdout: CappedOutput; stderr: CappedOutput } {
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const stderr = new CappedOutput(spec.maxOutputBytes);
  const collect = (stream: 'stdout' | 'stderr', into: CappedOutput): ((b: Buffer) => void) => {
    const decoder = new StringDecoder('utf8');
    return (b) => {
      const kept = into.push(b);
      if (kept && spec.onOutput) {
        const text = decoder.write(kept);
        if (text) spec.onOutput(stream, text);
      }
    };
  };
  child.stdout?.on('data', collect('stdout', stdout));
  child.stderr?.on('data', collect('stderr', stderr));
  // Child stdio are socketpairs: a child that dies with unread data can
  // reset them (ECONNRESET). What was read is kept; the run goes on.
  child.stdout?.on('error', () => undefined);
  child.stderr?.on('error', () => undefined);
  return { stdout, stderr };
}

function runInPty(spec: ChildSpec): Promise<ChildResult> {
  const pty = spec.pty;
  if (!pty) return Promise.reject(new PtySpawnError('pty mode needs node-pty'));
  const token = newEndToken();
  return new Promise((resolve, reject) => {
    let term: ReturnType<PtyModule['spawn']>;
    try {
      // The whole drain script runs inside the sandbox: the terminal is the tool's own.
      const run = launch(spec, drainedShellArgs(token, spec.args));
      term = pty.spawn(run.file, run.args, {
        name: spec.env.TERM ?? 'xterm-256color',
        cols: PTY_COLS,
        rows: PTY_ROWS,
        cwd: spec.cwd ?? process.cwd(),
        env: spec.env,
      });
    } catch (e) {
      reject(new PtySpawnError(e instanceof Error ? e.message : String(e)));
      return;
    }
    const pid = term.pid;
    const stderr = new CappedOutput(0);
    // The terminal is the tool's stdin; an EOF up front means a tool that
    // reads it gets "no input" instead of waiting for the timeout.
    term.write('\x04');
    const output = readTerminal(term, spec, token);

    let aborted = false;
    let exited = false;
    let killing: Promise<unknown> | undefined;
    const onAbort = (): void => {
      if (exited) return;
      aborted = true;
      killing = killProcessTree(pid, spec.killGraceMs, false);
    };
    const exitSub = term.onExit(({ exitCode, signal }) => {
      exited = true;
      spec.signal.removeEventListener('abort', onAbort);
      void (async () => {
        await killing;
        await killProcessTree(pid, spec.killGraceMs, true);
        const stdout = output.end();
        exitSub.dispose();
        const sig = signal ? signal : null;
        resolve({ pid, code: sig === null ? exitCode : null, signal: sig, stdout, stderr, aborted, terminal: true });
      })();
    });
    if (spec.signal.aborted) onAbort();
    else spec.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A terminal's output up to the drain script's end token (pty-drain.ts),
 * kept under the cap and reported as it comes; `end` returns it once the
 * terminal has exited.
 */
function readTerminal(term: ReturnType<PtyModule['spawn']>, spec: ChildSpec, token: string): { end(): CappedOutput } {
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const scanner = new TokenScanner(token);
  const take = (d: string): void => {
    if (d === '') return;
    const b = Buffer.from(d, 'utf8');
    const kept = stdout.push(b);
    if (kept && spec.onOutput) spec.onOutput('stdout', kept.length === b.length ? d : kept.toString('utf8'));
  };
  const dataSub = term.onData((d) => {
    const wasFound = scanner.found;
    take(scanner.feed(d));
    // Everything before the token has been read: the terminal may close now.
    if (scanner.found && !wasFound) term.write(`${token}\n`);
  });
  return {
    end: () => {
      take(scanner.flush());
      dataSub.dispose();
      return stdout;
    },
  };
}
