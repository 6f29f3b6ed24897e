// The number of live session buckets, for the gauge mcc_buckets. Counting
// means listing the store (a read of every bucket on SQLite, a scan on
// Redis), so a count is kept for 30 s: scrapes every few seconds, from
// several Prometheus servers, cost one listing per half minute.
import type { SessionStoreApi } from '../session/types';

const KEEP_MS = 30_000;

export class BucketCount {
  private last: { value: number; at: number } | undefined;
  private counting: Promise<number> | undefined;

  constructor(
    private readonly store: () => Pick<SessionStoreApi, 'list'> | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The last count if it is recent, else a new one; a failed listing keeps the last count (the store metrics count the error). */
  count(): Promise<number> {
    if (this.last && this.now() - this.last.at < KEEP_MS) return Promise.resolve(this.last.value);
    return (this.counting ??= this.recount().finally(() => (this.counting = undefined)));
  }

  private async recount(): Promise<number> {
    const store = this.store();
    if (!store) return 0;
    try {
      const value = (await store.list()).length;
      this.last = { value, at: this.now() };
      return value;
    } catch {
      return this.last?.value ?? 0;
    }
  }
}
