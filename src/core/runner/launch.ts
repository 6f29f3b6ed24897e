// Starting one child, on pipes or in a terminal, and reporting what it does
// as events. The same code runs in the spawner (spawner.ts), a small helper
// process that starts every child so that no fork copies the server's large
// heap, and, where no spawner can run, in the server itself.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type PtyModule = typeof import('node-pty');

export interface LaunchRequest {
  mode: 'pipe' | 'pty';
  file: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** Pipe mode: written to stdin, which is then closed; absent: stdin is /dev/null. */
  stdin?: string;
  /** Pty mode: the terminal's name and size. */
  term?: { name: string; cols: number; rows: number };
  /** `file` is bwrap: report its init in the sandbox's PID namespace (process-tree.ts). */
  sandboxed?: boolean;
}

export interface LaunchEvents {
  /** The child runs, leader of its own process group (pid = pgid). */
  spawned(pid: number): void;
  /** A sandboxed run: the pid of bwrap's init (as this process sees it). */
  init?(pid: number): void;
  /** Pipe mode: bytes of stdout or stderr; pty mode: text of the terminal (stream 'stdout'). */
  data(stream: 'stdout' | 'stderr', data: Buffer | string): void;
  /** Pipe mode: a signal's name; pty mode: its number (0: none). */
  exit(code: number | null, signal: string | number | null): void;
  /** Pipe mode: every stdio stream is closed (after exit). */
  close(): void;
  /** It could not start (nothing ran), or the spawner was lost. `pty`: the terminal could not be opened. */
  error(e: { message: string; code?: string; pty?: boolean }): void;
}

export interface LaunchControl {
  /** Pty mode: typed into the terminal. */
  write(data: string): void;
  /** The run is over: no more events are wanted, and pipes still open are closed. */
  end(): void;
}

/** Starts a child and reports on it (here, or through the spawner). */
export type Launcher = (req: LaunchRequest, ev: LaunchEvents) => LaunchControl;

const NOTHING: LaunchControl = { write: () => undefined, end: () => undefined };

/** Starts the child here, in this process. */
export function launchHere(req: LaunchRequest, ev: LaunchEvents, loadPty: () => PtyModule): LaunchControl {
  return req.mode === 'pty' ? ptyHere(req, ev, loadPty) : pipesHere(req, ev);
}

function pipesHere(req: LaunchRequest, ev: LaunchEvents): LaunchControl {
  const child = spawn(req.file, req.args, {
    cwd: req.cwd,
    env: req.env,
    detached: true, // own session and process group: pid = pgid
    stdio: [req.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  child.once('error', (e: NodeJS.ErrnoException) => ev.error({ message: e.message, ...(e.code ? { code: e.code } : {}) }));
  if (child.pid === undefined) return NOTHING;
  ev.spawned(child.pid);
  if (req.sandboxed) watchInit(child.pid, ev);
  if (req.stdin !== undefined && child.stdin) {
    child.stdin.on('error', () => undefined); // EPIPE: the tool did not read it all
    child.stdin.end(req.stdin);
  }
  child.stdout?.on('data', (b: Buffer) => ev.data('stdout', b));
  child.stderr?.on('data', (b: Buffer) => ev.data('stderr', b));
  // Child stdio are socketpairs: a child that dies with unread data can
  // reset them (ECONNRESET). What was read is kept; the run goes on.
  child.stdout?.on('error', () => undefined);
  child.stderr?.on('error', () => undefined);
  child.once('exit', (code, sig) => ev.exit(code, sig));
  child.once('close', () => ev.close());
  return {
    write: () => undefined,
    end: () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    },
  };
}

function ptyHere(req: LaunchRequest, ev: LaunchEvents, loadPty: () => PtyModule): LaunchControl {
  let term: ReturnType<PtyModule['spawn']>;
  try {
    const t = req.term ?? { name: 'xterm-256color', cols: 80, rows: 24 };
    term = loadPty().spawn(req.file, req.args, { name: t.name, cols: t.cols, rows: t.rows, cwd: req.cwd ?? process.cwd(), env: req.env });
  } catch (e) {
    ev.error({ message: e instanceof Error ? e.message : String(e), pty: true });
    return NOTHING;
  }
  ev.spawned(term.pid);
  if (req.sandboxed) watchInit(term.pid, ev);
  // Data that comes after the exit is still passed on: the run reads the
  // terminal until it has ended the process tree (run-child.ts).
  const dataSub = term.onData((d) => ev.data('stdout', d));
  const exitSub = term.onExit(({ exitCode, signal }) => {
    exitSub.dispose();
    ev.exit(exitCode, signal ?? 0);
  });
  return { write: (d) => term.write(d), end: () => dataSub.dispose() };
}

// bwrap starts its init within a few ms; its pid is read while bwrap runs,
// since once bwrap has exited nothing links the two any more.
const INIT_LOOKS = 100;

function watchInit(bwrap: number, ev: LaunchEvents): void {
  if (process.platform !== 'linux' || !ev.init) return;
  let looks = 0;
  const look = (): void => {
    let text: string;
    try {
      text = readFileSync(`/proc/${bwrap}/task/${bwrap}/children`, 'utf8');
    } catch {
      return; // bwrap is gone, or the kernel cannot say
    }
    const first = Number.parseInt(text, 10);
    if (Number.isInteger(first)) ev.init?.(first);
    else if (++looks < INIT_LOOKS) setTimeout(look, 1).unref();
  };
  setImmediate(look).unref();
}
