// Session storage over a VS Code Memento (workspace state): one key per
// bucket, so a write costs one bucket, never the whole store. Pure: it sees
// the Memento only through the small shape below, so tests use a fake.
import type { BucketRecord, SessionStorage } from '../core/session/types';

/** The part of vscode.Memento this adapter needs. */
export interface MementoLike {
  keys(): readonly string[];
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export const BUCKET_KEY_PREFIX = 'mcc.bucket.';

export class MementoStorage implements SessionStorage {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly memento: MementoLike,
    private readonly prefix = BUCKET_KEY_PREFIX,
  ) {}

  loadAll(): Promise<Map<string, BucketRecord>> {
    const out = new Map<string, BucketRecord>();
    for (const key of this.memento.keys()) {
      if (!key.startsWith(this.prefix)) continue;
      const rec = this.memento.get<BucketRecord>(key);
      // The store validates each record; a clone keeps it from sharing objects with the Memento.
      if (rec !== undefined) out.set(key.slice(this.prefix.length), structuredClone(rec));
    }
    return Promise.resolve(out);
  }

  put(id: string, record: BucketRecord): Promise<void> {
    return this.track(this.memento.update(this.prefix + id, structuredClone(record)));
  }

  delete(id: string): Promise<void> {
    // Memento has no delete: updating to undefined removes the key.
    return this.track(this.memento.update(this.prefix + id, undefined));
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track(write: Thenable<void>): Promise<void> {
    const p = Promise.resolve(write);
    this.pending.add(p);
    const done = (): void => {
      this.pending.delete(p);
    };
    p.then(done, done);
    return p;
  }
}
