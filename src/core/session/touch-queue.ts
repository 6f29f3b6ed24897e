// Last-use refreshes waiting to be written. get_session, search and execute
// without a write-back only queue one here; the store writes the queue in one
// batch at most once per interval (a minute by default) and on shutdown, so a
// read costs no write, and a bucket's expiry is exact to within the interval.

import type { Touch } from './types';

export class TouchQueue {
  private pending = new Map<string, Touch>();

  add(t: Touch): void {
    const before = this.pending.get(t.id);
    const clientName = t.clientName ?? before?.clientName;
    this.pending.set(t.id, {
      ...t,
      lastUsed: Math.max(t.lastUsed, before?.lastUsed ?? 0),
      ...(clientName !== undefined ? { clientName } : {}),
    });
  }

  get(id: string): Touch | undefined {
    return this.pending.get(id);
  }

  all(): Touch[] {
    return [...this.pending.values()];
  }

  /** Forgets a bucket's refresh: a durable change carried it, or the bucket is gone. */
  drop(id: string, upTo = Infinity): void {
    const t = this.pending.get(id);
    if (t && t.lastUsed <= upTo) this.pending.delete(id);
  }

  /** Empties the queue, handing over what it held. */
  take(): Touch[] {
    const all = [...this.pending.values()];
    this.pending = new Map();
    return all;
  }

  get size(): number {
    return this.pending.size;
  }
}
