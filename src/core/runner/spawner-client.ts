// The server's side of the spawner (spawner.ts): started lazily at the
// first run, and again at the next run after it ended. Runs in flight when
// it ends are told so (the run kills its process tree and fails). Where
// it cannot run at all (no helper file, it never answered, Windows, or
// MCC_SPAWNER=off), children are started here instead, as before.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { frame, frameReader } from './frames';
import { launchHere, type LaunchControl, type LaunchEvents, type LaunchRequest, type Launcher, type PtyModule } from './launch';
import type { FromSpawner, ToSpawner } from './spawner';

const LOST = 'the process spawner of the server ended during the run; the run was stopped';
/** The spawner ended before it read anything: the run never started and may start elsewhere. */
export const SPAWNER_NEVER_STARTED = 'ESPAWNER_START';

class Spawner {
  private proc: ChildProcess | undefined;
  private hello = false;
  private nextId = 1;
  private readonly runs = new Map<number, LaunchEvents>();
  /** Set once the helper could not be started: launch here from then on. */
  broken = false;

  constructor(private readonly script: string) {}

  launch(req: LaunchRequest, ev: LaunchEvents): LaunchControl {
    const proc = this.ensure();
    const id = this.nextId++;
    const done = (): void => this.forget(id);
    this.runs.set(id, {
      ...ev,
      close: () => (done(), ev.close()),
      error: (e) => (done(), ev.error(e)),
    });
    this.refresh();
    this.send(proc, { t: 'launch', id, req });
    return {
      write: (data) => this.send(proc, { t: 'write', id, data }),
      end: () => {
        if (this.runs.has(id)) this.send(proc, { t: 'end', id });
        done();
      },
    };
  }

  private forget(id: number): void {
    this.runs.delete(id);
    this.refresh();
  }

  // Held open while runs are in flight; idle, it never keeps the server alive.
  private refresh(): void {
    const p = this.proc;
    if (!p) return;
    const busy = this.runs.size > 0;
    for (const h of [p, p.stdin, p.stdout] as Array<{ ref(): void; unref(): void } | null>) {
      if (busy) h?.ref();
      else h?.unref();
    }
  }

  private send(proc: ChildProcess, msg: ToSpawner): void {
    if (proc === this.proc && proc.stdin?.writable) proc.stdin.write(frame(msg));
  }

  private ensure(): ChildProcess {
    if (this.proc) return this.proc;
    // Nothing of the server's environment: each child gets the one built for it.
    const env: Record<string, string> = process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
    const proc = spawn(process.execPath, [this.script], { stdio: ['pipe', 'pipe', 'inherit'], env, windowsHide: true });
    this.proc = proc;
    this.hello = false;
    proc.stdin?.on('error', () => undefined); // it ended: 'exit' tells the runs
    proc.stdout?.on(
      'data',
      frameReader((m) => this.receive(m as FromSpawner)),
    );
    proc.once('error', () => this.lost(proc));
    proc.once('exit', () => this.lost(proc));
    return proc;
  }

  private receive(msg: FromSpawner): void {
    if (msg.t === 'hello') return void (this.hello = true);
    const ev = this.runs.get(msg.id);
    if (!ev) return;
    if (msg.t === 'spawned') ev.spawned(msg.pid);
    else if (msg.t === 'init') ev.init?.(msg.pid);
    else if (msg.t === 'data') ev.data(msg.stream, msg.data);
    else if (msg.t === 'exit') ev.exit(msg.code, msg.signal);
    else if (msg.t === 'close') ev.close();
    else ev.error({ message: msg.message, ...(msg.code ? { code: msg.code } : {}), ...(msg.pty ? { pty: true } : {}) });
  }

  private lost(proc: ChildProcess): void {
    if (this.proc !== proc) return;
    this.proc = undefined;
    // Never answered: it started nothing, and will not start here.
    if (!this.hello) this.broken = true;
    const runs = [...this.runs.values()];
    this.runs.clear();
    const code = this.hello ? 'ESPAWNER' : SPAWNER_NEVER_STARTED;
    for (const ev of runs) ev.error({ message: LOST, code });
  }

  /** The helper's pid while it runs. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }
}

let shared: Spawner | undefined;

/** The launcher every run uses: the shared spawner, or this process when none can run. */
export function defaultLauncher(loadPty: () => PtyModule): Launcher {
  const spawner = sharedSpawner();
  return (req, ev) => (spawner && !spawner.broken ? spawner.launch(req, ev) : launchHere(req, ev, loadPty));
}

function sharedSpawner(): Spawner | undefined {
  if (shared) return shared;
  if (process.platform === 'win32' || process.env.MCC_SPAWNER === 'off') return undefined;
  const script = join(__dirname, 'spawner.js');
  if (!existsSync(script)) return undefined;
  return (shared = new Spawner(script));
}

/** The pid of the spawner, when it runs (tests). */
export function spawnerPid(): number | undefined {
  return shared?.pid;
}
