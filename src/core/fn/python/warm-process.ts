// One warm runner process (`mcc_runner.py serve`, see python-pool.ts): it
// runs one call at a time, and a call is over when its answer (on fd 3) and
// the fences on stdout and stderr are all in.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { stopReasonOf } from '../../tool-run/errors';
import { killProcessTree } from '../../runner/process-tree';
import { pythonRunnerPath } from '../assets';
import { withoutContextVars } from '../fn-env';
import { sleep, spawnRunner, type PythonRunHandle, type PythonRunResult, type StopReason } from './python-process';
import type { WarmCallSpec } from './warm-key';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../runner/capped-output';
import { FENCE_SEEN, FenceSplitter, LineReader, OutputBuffer } from './warm-streams';

const KILL_GRACE_MS = 300;
// After the interpreter exits, how long a grandchild may keep our pipes open.
const DRAIN_MS = 300;
// After the answer, how long the fences may lag behind it on the other pipes.
const FENCE_WAIT_MS = 2000;
// After both fences, how long the answer may lag behind them on fd 3.
const ANSWER_WAIT_MS = 500;

interface Pending {
  fence: string;
  answer?: string;
  fences: Set<'stdout' | 'stderr'>;
  out: OutputBuffer;
  err: OutputBuffer;
  stopped?: StopReason;
  finish: (r: PythonRunResult | typeof FAILED_TO_START) => void;
  fenceTimer?: NodeJS.Timeout;
  answerTimer?: NodeJS.Timeout;
}

export class WarmProcess {
  readonly pid: number | undefined;
  idleSince = 0;
  private readonly child: ChildProcess;
  private readonly streams: { stdout: FenceSplitter; stderr: FenceSplitter };
  private current?: Pending;
  private idleTimer?: NodeJS.Timeout;
  private exited = false;
  private dead = false;
  private exitInfo?: { code: number | null; signal: NodeJS.Signals | null };
  private readonly exitedPromise: Promise<void>;
  private spawnError?: Error;
  /** Started by bwrap: the rest of its group lives in the sandbox's PID namespace. */
  private readonly sandboxed: boolean;

  constructor(
    readonly key: string,
    first: WarmCallSpec,
    private readonly idleMs: number,
    private readonly forget: (p: WarmProcess) => void,
    /** Called each time a call ends and the process is free for the next. */
    private readonly onIdle: (p: WarmProcess) => void = () => undefined,
  ) {
    // -B: no __pycache__ litter in the tool's folder; -u: output events as printed.
    // In the tool's sandbox when it has one: the warm process lives there for good.
    const args = ['-B', '-u', pythonRunnerPath(), 'serve', '--result-fd', '3'];
    this.child = spawnRunner(first.interpreter, args, { cwd: first.cwd, env: withoutContextVars(first.env), ...(first.sandbox ? { wrap: first.sandbox.wrap } : {}) });
    this.sandboxed = first.sandbox !== undefined;
    this.pid = this.child.pid;
    this.streams = {
      stdout: new FenceSplitter((d) => this.printed('stdout', d)),
      stderr: new FenceSplitter((d) => this.printed('stderr', d)),
    };
    this.wireStreams();
    this.exitedPromise = this.watchExit();
  }

  private wireStreams(): void {
    for (const name of ['stdout', 'stderr'] as const) {
      const s = this.child[name] as Readable;
      s.setEncoding('utf8');
      s.on('data', (d: string) => this.streams[name].push(d));
      s.on('error', () => undefined);
    }
    const answers = this.child.stdio[3] as Readable;
    answers.setEncoding('utf8');
    const lines = new LineReader((line) => this.onAnswer(line));
    answers.on('data', (d: string) => lines.push(d));
    answers.on('error', () => undefined);
    (this.child.stdin as Writable).on('error', () => undefined);
  }

  /** Resolves once the process is gone, its pipes drained and its group reaped. */
  private watchExit(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.child.once('error', (e) => {
        this.spawnError = e;
        this.exited = true;
        this.markDead();
        this.settleOnExit();
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.exited = true;
        this.exitInfo = { code, signal };
        this.markDead();
        const ended = (['stdout', 'stderr'] as const).map(
          (n) =>
            new Promise<void>((r) => {
              const s = this.child[n] as Readable;
              if (s.readableEnded || s.destroyed) return r();
              s.once('end', r);
              s.once('close', r);
            }),
        );
        // Whatever the tool left running in the group (a background process,
        // a daemon thread's child) ends with the runner, as after an exec run.
        const pid = this.child.pid;
        const reaped = pid !== undefined ? killProcessTree(pid, KILL_GRACE_MS, true, this.sandboxed ? {} : undefined).catch(() => false) : Promise.resolve(true);
        void Promise.race([Promise.all(ended), sleep(DRAIN_MS)]).then(async () => {
          for (const s of [this.child.stdout, this.child.stderr, this.child.stdio[3]]) (s as Readable | null)?.destroy();
          this.settleOnExit();
          await reaped;
          resolve();
        });
      });
    });
  }

  isIdle(): boolean {
    return !this.dead && !this.current;
  }

  call(spec: WarmCallSpec): PythonRunHandle {
    this.clearIdle();
    this.setRef(true);
    const fence = `\u0000mcc-fence-${randomUUID()}\u0000\n`;
    const cap = spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => stop(stopReasonOf(spec.signal));
    const stop = (reason: StopReason): void => {
      const p = this.current;
      if (!p || p.fence !== fence || p.stopped || this.exited) return;
      p.stopped = reason;
      void this.kill(reason);
    };
    const done = new Promise<PythonRunResult>((resolve, reject) => {
      const out = new OutputBuffer(cap);
      const err = new OutputBuffer(cap);
      this.current = {
        fence,
        fences: new Set(),
        out,
        err,
        finish: (r) => {
          clearTimeout(timer);
          spec.signal?.removeEventListener('abort', onAbort);
          if (r === FAILED_TO_START) reject(this.spawnError ?? new Error('the interpreter did not start'));
          else resolve(r);
        },
      };
      this.onOutput = spec.onOutput;
      this.streams.stdout.arm(fence);
      this.streams.stderr.arm(fence);
      timer = setTimeout(() => stop('timeout'), spec.timeoutMs);
      spec.signal?.addEventListener('abort', onAbort, { once: true });
      const line = JSON.stringify({ ...spec.request, env: spec.env, cwd: spec.cwd, fence }) + '\n';
      (this.child.stdin as Writable).write(line);
      if (spec.signal?.aborted) onAbort();
      if (this.exited) this.settleOnExit();
    });
    return { stop, done };
  }

  /** Ends the process: stdin closed when idle, its whole group killed otherwise. */
  async kill(reason: StopReason): Promise<void> {
    this.markDead();
    if (this.current && !this.current.stopped) this.current.stopped = reason;
    if (!this.exited) this.setRef(true); // whoever awaits the end must see it
    if (!this.exited && this.child.pid !== undefined) await killProcessTree(this.child.pid, KILL_GRACE_MS, false);
    await this.exitedPromise;
  }

  /**
   * Out of the pool: it exits at the end of stdin, and then whatever the tool
   * left running in its process group is killed (see the exit handler).
   */
  retire(): void {
    this.markDead();
    this.child.stdin?.end();
    this.setRef(false);
  }

  private onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;

  private printed(stream: 'stdout' | 'stderr', data: string | typeof FENCE_SEEN): void {
    const p = this.current;
    if (!p) return; // between calls: something a tool left running
    if (data === FENCE_SEEN) {
      p.fences.add(stream);
      this.maybeFinish();
      this.awaitAnswer(p);
      return;
    }
    if (data === '') return;
    (stream === 'stdout' ? p.out : p.err).add(data);
    this.onOutput?.(stream, data);
  }

  private onAnswer(line: string): void {
    const p = this.current;
    if (!p || p.answer !== undefined) return;
    p.answer = line;
    this.maybeFinish();
    // The fences were written before the answer; if they do not come, the
    // process is not trustworthy any more.
    if (this.current === p && !p.fenceTimer) {
      p.fenceTimer = setTimeout(() => {
        if (this.current !== p) return;
        this.markDead();
        this.finishCurrent({ result: line, stdout: p.out.text(), stderr: p.err.text(), code: 0, signal: null });
        void this.kill('cancelled');
      }, FENCE_WAIT_MS);
      p.fenceTimer.unref();
    }
  }

  /**
   * The runner writes the answer right after both fences. When it does not
   * come (a tool closed or took over fd 3), the call ends without a result
   * after a short grace, and the process, no longer trustworthy, is killed.
   */
  private awaitAnswer(p: Pending): void {
    if (this.current !== p || p.answer !== undefined || p.fences.size < 2 || p.answerTimer || p.stopped) return;
    p.answerTimer = setTimeout(() => {
      if (this.current !== p || p.answer !== undefined || p.stopped || this.exited) return;
      this.markDead();
      this.finishCurrent({ stdout: p.out.text(), stderr: p.err.text(), code: null, signal: null, unanswered: true });
      void this.kill('cancelled');
    }, ANSWER_WAIT_MS);
    p.answerTimer.unref();
  }

  private maybeFinish(): void {
    const p = this.current;
    if (!p || p.answer === undefined || p.fences.size < 2 || p.stopped) return;
    this.finishCurrent({ result: p.answer, stdout: p.out.text(), stderr: p.err.text(), code: 0, signal: null });
  }

  private finishCurrent(r: PythonRunResult | typeof FAILED_TO_START): void {
    const p = this.current;
    if (!p) return;
    clearTimeout(p.fenceTimer);
    clearTimeout(p.answerTimer);
    this.current = undefined;
    this.onOutput = undefined;
    if (!this.dead) this.becomeIdle();
    p.finish(r);
  }

  private settleOnExit(): void {
    const p = this.current;
    if (!p) return;
    if (this.spawnError && !this.exitInfo) return this.finishCurrent(FAILED_TO_START);
    // A stopped call reports no answer, like a one-shot run that was killed.
    const result = p.stopped ? undefined : p.answer;
    this.finishCurrent({
      ...(result !== undefined ? { result } : {}),
      stdout: p.out.text(),
      stderr: p.err.text(),
      code: this.exitInfo?.code ?? null,
      signal: this.exitInfo?.signal ?? null,
      ...(p.stopped ? { stopped: p.stopped } : {}),
    });
  }

  private becomeIdle(): void {
    this.idleSince = performance.now();
    this.setRef(false);
    this.idleTimer = setTimeout(() => this.retire(), this.idleMs);
    this.idleTimer.unref();
    this.onIdle(this);
  }

  private clearIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private markDead(): void {
    if (this.dead) return;
    this.dead = true;
    this.clearIdle();
    this.forget(this);
  }

  /** A busy process keeps the event loop alive (like a one-shot child); an idle one does not. */
  private setRef(on: boolean): void {
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr, this.child.stdio[3]] as Array<{ ref?: () => void; unref?: () => void } | null>;
    for (const h of handles) (on ? h?.ref : h?.unref)?.call(h);
  }
}

const FAILED_TO_START = Symbol('failed to start');
