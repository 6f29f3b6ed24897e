// Test doubles for the session store: a settable clock, a logger that
// records, and a storage wrapper that counts, delays or fails writes.

import type { Clock, Logger } from '../../../src/core/host';
import type { BucketChange, ChangeOutcome, SessionStorage, StoredBucket, Touch } from '../../../src/core/session/types';

export class FakeClock implements Clock {
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export class RecordingLogger implements Logger {
  readonly lines: Array<{ level: string; message: string }> = [];
  info(message: string): void {
    this.lines.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.lines.push({ level: 'warn', message });
  }
  error(message: string): void {
    this.lines.push({ level: 'error', message });
  }
  debug(message: string): void {
    this.lines.push({ level: 'debug', message });
  }
  warnings(): string[] {
    return this.lines.filter((l) => l.level === 'warn').map((l) => l.message);
  }
}

/** Wraps a storage; every write takes `delayMs` and can be made to fail; counts writes. */
export class InstrumentedStorage implements SessionStorage {
  changes = 0;
  touchBatches: Touch[][] = [];
  inFlight = 0;
  maxInFlight = 0;
  failNext = 0;

  constructor(
    readonly inner: SessionStorage,
    public delayMs = 0,
  ) {}

  get description(): string {
    return `instrumented ${this.inner.description}`;
  }
  get(id: string): Promise<StoredBucket | undefined> {
    return this.inner.get(id);
  }
  list(): Promise<Array<[string, StoredBucket]>> {
    return this.inner.list();
  }
  change(id: string, change: BucketChange): Promise<ChangeOutcome> {
    this.changes++;
    return this.around(() => this.inner.change(id, change));
  }
  touch(touches: readonly Touch[]): Promise<void> {
    this.touchBatches.push([...touches]);
    return this.around(() => this.inner.touch(touches));
  }
  remove(id: string): Promise<boolean> {
    return this.around(() => this.inner.remove(id));
  }
  sweep(now: number, ttlMs: number): Promise<string[]> {
    return this.around(() => this.inner.sweep(now, ttlMs));
  }
  importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): Promise<boolean> {
    return this.around(() => this.inner.importIfAbsent(id, bucket, ttlMs, now));
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  private async around<T>(op: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.failNext > 0) {
        this.failNext--;
        throw new Error('disk full (injected)');
      }
      return await op();
    } finally {
      this.inFlight--;
    }
  }
}
