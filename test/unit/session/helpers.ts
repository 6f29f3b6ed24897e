// Test doubles for the session store: a settable clock, a logger that
// records, and a storage wrapper that counts, delays or fails calls.

import type { Clock, Logger } from '../../../src/core/host';
import type { BucketRecord, SessionStorage } from '../../../src/core/session/types';

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

/** Wraps a storage; every put/delete takes `delayMs` and can be made to fail. */
export class InstrumentedStorage implements SessionStorage {
  puts = 0;
  deletes = 0;
  inFlight = 0;
  maxInFlight = 0;
  failNext = 0;

  constructor(
    readonly inner: SessionStorage,
    public delayMs = 0,
  ) {}

  loadAll(): Promise<Map<string, BucketRecord>> {
    return this.inner.loadAll();
  }

  async put(id: string, record: BucketRecord): Promise<void> {
    this.puts++;
    await this.around(() => this.inner.put(id, record));
  }

  async delete(id: string): Promise<void> {
    this.deletes++;
    await this.around(() => this.inner.delete(id));
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  private async around(op: () => Promise<void>): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.failNext > 0) {
        this.failNext--;
        throw new Error('disk full (injected)');
      }
      await op();
    } finally {
      this.inFlight--;
    }
  }
}
