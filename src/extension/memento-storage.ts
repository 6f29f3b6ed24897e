// Session storage over a VS Code Memento (workspace state): one key per
// bucket holding the version 1 record, so a write costs one bucket, never
// the whole store, and state from earlier versions reads unchanged. One
// extension host owns a workspace's state, so changes of a bucket are made
// one at a time here and need nothing more to be atomic. Pure: it sees the
// Memento only through the small shape below, so tests use a fake.
import { applyChange, applyTouch, isExpired } from '../core/session/bucket-change';
import { bucketFromRecord, recordFromBucket } from '../core/session/bucket-record';
import { KeyedMutex } from '../core/session/keyed-mutex';
import { bucketIdOf } from '../core/session/bucket-id';
import type { BucketChange, ChangeOutcome, SessionStorage, StoredBucket, Touch } from '../core/session/types';
import { silentLogger, type Logger } from '../core/host';

/** The part of vscode.Memento this adapter needs. */
export interface MementoLike {
  keys(): readonly string[];
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export const BUCKET_KEY_PREFIX = 'mcc.bucket.';

export class MementoStorage implements SessionStorage {
  readonly description = 'workspace state';
  private readonly locks = new KeyedMutex();

  constructor(
    private readonly memento: MementoLike,
    private readonly logger: Logger = silentLogger,
    private readonly prefix = BUCKET_KEY_PREFIX,
  ) {}

  get(id: string): Promise<StoredBucket | undefined> {
    return this.locks.run(id, () => Promise.resolve(this.read(id)));
  }

  list(): Promise<Array<[string, StoredBucket]>> {
    const out: Array<[string, StoredBucket]> = [];
    for (const key of this.memento.keys()) {
      if (!key.startsWith(this.prefix)) continue;
      const id = key.slice(this.prefix.length);
      const b = this.read(id);
      if (b) out.push([id, b]);
    }
    return Promise.resolve(out);
  }

  change(id: string, change: BucketChange): Promise<ChangeOutcome> {
    return this.locks.run(id, async () => {
      const { outcome, next } = applyChange(this.read(id), change);
      if (next) await this.memento.update(this.prefix + id, recordFromBucket(next));
      return outcome;
    });
  }

  async touch(touches: readonly Touch[]): Promise<void> {
    await Promise.all(
      touches.map((t) => this.locks.run(t.id, () => Promise.resolve(this.memento.update(this.prefix + t.id, recordFromBucket(applyTouch(this.read(t.id), t)))))),
    );
  }

  remove(id: string): Promise<boolean> {
    return this.locks.run(id, async () => {
      const existed = this.memento.get(this.prefix + id) !== undefined;
      // Memento has no delete: updating to undefined removes the key.
      if (existed) await this.memento.update(this.prefix + id, undefined);
      return existed;
    });
  }

  async sweep(now: number, ttlMs: number): Promise<string[]> {
    const gone: string[] = [];
    for (const key of this.memento.keys()) {
      if (!key.startsWith(this.prefix)) continue;
      const id = key.slice(this.prefix.length);
      const removed = await this.locks.run(id, async () => {
        const raw = this.memento.get<unknown>(key);
        const b = raw === undefined ? undefined : bucketFromRecord(raw, id, this.logger);
        if (b && !isExpired(b, now, ttlMs)) {
          const home = bucketIdOf(b.user, b.sessionKey);
          if (home === id) return false;
          // Stored under a foreign key (hand-edited): moved home unless a live bucket is there.
          this.logger.warn(`Session bucket stored as ${JSON.stringify(id)} belongs under ${JSON.stringify(home)}; moving it.`);
          await this.importIfAbsent(home, b, ttlMs, now);
        }
        // Unreadable (logged by bucketFromRecord), expired or moved: it can never be served from here.
        await this.memento.update(key, undefined);
        return true;
      });
      if (removed) gone.push(id);
    }
    return gone;
  }

  importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): Promise<boolean> {
    return this.locks.run(id, async () => {
      const current = this.read(id);
      if (current && !isExpired(current, now, ttlMs)) return false;
      await this.memento.update(this.prefix + id, recordFromBucket(bucket));
      return true;
    });
  }

  async close(): Promise<void> {
    // Writes are awaited by the calls that made them; nothing to release.
  }

  /** The bucket stored as `id`; undefined when absent, unreadable or not `id`'s own. */
  private read(id: string): StoredBucket | undefined {
    const raw = this.memento.get<unknown>(this.prefix + id);
    const b = raw === undefined ? undefined : bucketFromRecord(raw, id, this.logger);
    return b && bucketIdOf(b.user, b.sessionKey) === id ? b : undefined;
  }
}
