// Session storage that lives only as long as the process: `mcc serve
// --store memory:` and tests. Each call runs to completion synchronously, so
// every change is atomic; buckets are immutable values, shared with nobody.

import { applyChange, applyTouch, isExpired } from './bucket-change';
import type { BucketChange, ChangeOutcome, SessionStorage, StoredBucket, Touch } from './types';

export class MemoryStorage implements SessionStorage {
  readonly description = 'memory (lost when the server stops)';
  private readonly buckets = new Map<string, StoredBucket>();

  constructor(initial?: Iterable<[string, StoredBucket]>) {
    for (const [id, b] of initial ?? []) this.buckets.set(id, b);
  }

  get(id: string): Promise<StoredBucket | undefined> {
    return Promise.resolve(this.buckets.get(id));
  }

  list(): Promise<Array<[string, StoredBucket]>> {
    return Promise.resolve([...this.buckets]);
  }

  change(id: string, change: BucketChange): Promise<ChangeOutcome> {
    const { outcome, next } = applyChange(this.buckets.get(id), change);
    if (next) this.buckets.set(id, next);
    return Promise.resolve(outcome);
  }

  touch(touches: readonly Touch[]): Promise<void> {
    for (const t of touches) this.buckets.set(t.id, applyTouch(this.buckets.get(t.id), t));
    return Promise.resolve();
  }

  remove(id: string): Promise<boolean> {
    return Promise.resolve(this.buckets.delete(id));
  }

  sweep(now: number, ttlMs: number): Promise<string[]> {
    const gone = [...this.buckets].filter(([, b]) => isExpired(b, now, ttlMs)).map(([id]) => id);
    for (const id of gone) this.buckets.delete(id);
    return Promise.resolve(gone);
  }

  importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): Promise<boolean> {
    const current = this.buckets.get(id);
    if (current && !isExpired(current, now, ttlMs)) return Promise.resolve(false);
    this.buckets.set(id, bucket);
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
