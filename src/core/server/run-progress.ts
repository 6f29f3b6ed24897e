// Progress of one run for a caller that asked for it (a progressToken): an
// update soon after new output, carrying the latest clean output line(s),
// and a heartbeat when the tool is silent, so a client that resets its
// request timeout on progress never gives up on a live tool. `progress`
// counts seconds since the call began; `total` is the run's time limit when
// it has one.
import { systemClock, type Clock } from '../host';
import { cleanTerminalText } from '../runner/terminal-text';
import type { RunEvent, RunEventSink } from '../tool-run/contract';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message: string;
}

export interface RunProgressOptions {
  send: (update: ProgressUpdate) => void;
  /** The run's time limit in seconds, when it has one. */
  totalSeconds?: (toolKey: string) => number | undefined;
  clock?: Clock;
  /** Longest silence between two updates (default 4 s; the promise to clients is 5 s). */
  heartbeatMs?: number;
  /** Shortest gap between two updates driven by output (default 1 s). */
  minGapMs?: number;
  /** Longest message (default 300 characters). */
  maxMessageChars?: number;
}

const TAIL_CHARS = 4096;
const TICK_MS = 250;

export class RunProgress implements RunEventSink {
  private readonly clock: Clock;
  private readonly heartbeatMs: number;
  private readonly minGapMs: number;
  private readonly maxChars: number;
  private readonly began: number;
  private readonly timer: NodeJS.Timeout;
  private tail = '';
  private fresh = false;
  private lastSent: number;
  private lastProgress = 0;
  private total: number | undefined;
  private toolKey = '';
  private stopped = false;

  constructor(private readonly opts: RunProgressOptions) {
    this.clock = opts.clock ?? systemClock;
    this.heartbeatMs = opts.heartbeatMs ?? 4000;
    this.minGapMs = opts.minGapMs ?? 1000;
    this.maxChars = opts.maxMessageChars ?? 300;
    this.began = this.clock.now();
    this.lastSent = this.began;
    this.timer = setInterval(() => this.tick(), Math.min(TICK_MS, this.minGapMs));
    this.timer.unref();
  }

  emit(e: RunEvent): void {
    if (this.stopped) return;
    if (e.type === 'started') {
      this.toolKey = e.toolKey;
      this.total = this.opts.totalSeconds?.(e.toolKey);
      this.send(`started ${e.toolKey}`);
    } else if (e.type === 'output') {
      this.tail = (this.tail + e.data).slice(-TAIL_CHARS);
      this.fresh = true;
    } else {
      this.stop();
    }
  }

  /** No more updates: the answer is on its way (progress must not follow it). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** The latest non-empty output lines, clean, within the message cap. */
  latestLines(): string {
    const nl = this.tail.length >= TAIL_CHARS ? this.tail.indexOf('\n') : -1;
    // A tail cut mid-line may start inside an escape sequence: start at a line.
    const text = cleanTerminalText(nl >= 0 ? this.tail.slice(nl + 1) : this.tail);
    const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
    const picked: string[] = [];
    let size = 0;
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i];
      if (picked.length === 0 && line.length > this.maxChars) return `…${line.slice(-(this.maxChars - 1))}`;
      if (size + line.length + (picked.length > 0 ? 1 : 0) > this.maxChars) break;
      size += line.length + (picked.length > 0 ? 1 : 0);
      picked.unshift(line);
    }
    return picked.join('\n');
  }

  private tick(): void {
    if (this.stopped) return;
    const since = this.clock.now() - this.lastSent;
    if (this.fresh && since >= this.minGapMs) {
      this.fresh = false;
      const lines = this.latestLines();
      if (lines) return this.send(lines);
    }
    if (since >= this.heartbeatMs) {
      const secs = Math.round((this.clock.now() - this.began) / 1000);
      this.send(`${this.toolKey || 'the tool'} is still running (${secs} s, no new output)`);
    }
  }

  private send(message: string): void {
    const now = this.clock.now();
    this.lastSent = now;
    // Strictly increasing, as the spec asks, even for two updates in one tick.
    const progress = Math.max(Math.round((now - this.began) / 100) / 10, this.lastProgress + 0.001);
    this.lastProgress = progress;
    const total = this.total !== undefined && progress <= this.total ? this.total : undefined;
    this.opts.send(total !== undefined ? { progress, total, message } : { progress, message });
  }
}
