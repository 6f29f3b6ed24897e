// The session store: one bucket of variables per (user, session key), with a
// TTL, size limits and write-back, persisted through a SessionStorage.
//
// Every state change is computed synchronously against the latest in-memory
// bucket, so changes to one bucket are strictly serialised and none is lost.
// Persisting runs through a per-bucket queue with at most one storage call in
// flight: changes made meanwhile are carried by the next call, and each
// caller resolves once a write that includes its change is durable.

import { Emitter, silentLogger, systemClock, type Clock, type Logger } from '../host';
import { bucketIdOf } from './bucket-id';
import { bucketBytes, bucketFromRecord, recordFromBucket, varsObject, type LiveBucket } from './bucket-record';
import { SessionError } from './errors';
import { jsonProblem, utf8Bytes } from './json-value';
import { validateVariableName } from './names';
import {
  DEFAULT_LIMITS,
  DEFAULT_TTL_SECONDS,
  type BucketRecord,
  type BucketView,
  type SessionStorage,
  type SessionStoreApi,
  type StoreChange,
  type StoreChangeReason,
  type StoreLimits,
  type WriteBackResult,
} from './types';
import { computeWriteBack } from './write-back';

export { bucketIdOf } from './bucket-id';
export { SessionError } from './errors';

export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

export interface SessionStoreOptions {
  storage: SessionStorage;
  clock?: Clock;
  ttlSeconds?: number;
  limits?: Partial<StoreLimits>;
  logger?: Logger;
  /** How often expired buckets are removed; 0 turns the periodic sweep off. */
  sweepIntervalMs?: number;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface PersistQueue {
  waiters: Waiter[];
  done?: Promise<void>;
}

export class SessionStore implements SessionStoreApi {
  private readonly changes = new Emitter<StoreChange>();
  readonly onDidChange = this.changes.event;
  private readonly buckets = new Map<string, LiveBucket>();
  private readonly queues = new Map<string, PersistQueue>();
  /** What storage holds for each bucket (absent = nothing), to roll back to when a write fails. */
  private readonly saved = new Map<string, BucketRecord>();
  private sweeper: NodeJS.Timeout | undefined;

  private constructor(
    private readonly storage: SessionStorage,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    readonly limits: Readonly<StoreLimits>,
    private readonly logger: Logger,
  ) {}

  /** Loads every bucket from storage, removes expired ones, and starts the sweeper. */
  static async open(opts: SessionStoreOptions): Promise<SessionStore> {
    const ttlSeconds = opts.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    requirePositive('ttlSeconds', ttlSeconds);
    const limits: StoreLimits = { ...DEFAULT_LIMITS, ...opts.limits };
    requirePositive('limits.maxValueBytes', limits.maxValueBytes);
    requirePositive('limits.maxBucketBytes', limits.maxBucketBytes);
    const interval = opts.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    if (!Number.isFinite(interval) || interval < 0) {
      throw new SessionError(`Session store option sweepIntervalMs must be a number >= 0, got ${String(interval)}.`);
    }
    const store = new SessionStore(
      opts.storage,
      opts.clock ?? systemClock,
      ttlSeconds * 1000,
      limits,
      opts.logger ?? silentLogger,
    );
    await store.load();
    if (interval > 0) store.startSweeper(interval);
    return store;
  }

  /** Stops the periodic sweeper and drops listeners. Pending writes still complete (see flush). */
  dispose(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.changes.dispose();
  }

  list(): BucketView[] {
    const now = this.clock.now();
    return [...this.buckets]
      .filter(([, b]) => !this.isExpired(b, now))
      .map(([id, b]) => this.view(id, b))
      .sort((a, b) => b.lastUsed - a.lastUsed);
  }

  bucket(id: string): BucketView | undefined {
    const b = this.live(id);
    return b && this.view(id, b);
  }

  variables(user: string, sessionKey: string): Record<string, unknown> {
    const b = this.live(bucketIdOf(user, sessionKey));
    return b ? varsObject(b.vars) : {};
  }

  touch(user: string, sessionKey: string, clientName?: string): Promise<void> {
    return this.mutate(user, sessionKey, (id, b, now) => {
      const next = { ...b, lastUsed: now, ...(clientName !== undefined ? { clientName } : {}) };
      return this.commit(id, next, 'touch');
    });
  }

  set(user: string, sessionKey: string, name: string, value: unknown): Promise<void> {
    return this.mutate(user, sessionKey, (id, b, now) => {
      const nameProblem = validateVariableName(name);
      if (nameProblem) throw new SessionError(nameProblem);
      const problem = jsonProblem(value);
      if (problem) throw new SessionError(`Cannot store '${name}': ${problem}. Nothing was stored.`);
      const json = JSON.stringify(value);
      this.checkValueSize(name, json);
      const vars = new Map(b.vars).set(name, json);
      this.checkBucketSize(vars, `'${name}' was not stored`);
      return this.commit(id, { ...b, vars, lastUsed: now }, 'set');
    });
  }

  async delete(user: string, sessionKey: string, name: string): Promise<boolean> {
    checkOwner(user, sessionKey);
    const nameProblem = validateVariableName(name);
    if (nameProblem) throw new SessionError(nameProblem);
    const id = bucketIdOf(user, sessionKey);
    const b = this.live(id);
    // Deleting from a bucket that does not exist changes nothing and creates nothing.
    if (!b) return false;
    const existed = b.vars.has(name);
    const vars = new Map(b.vars);
    vars.delete(name);
    await this.commit(id, { ...b, vars, lastUsed: this.clock.now() }, existed ? 'delete' : 'touch');
    return existed;
  }

  async clear(user: string, sessionKey: string): Promise<void> {
    checkOwner(user, sessionKey);
    const id = bucketIdOf(user, sessionKey);
    if (!this.buckets.has(id)) return;
    await this.commit(id, undefined, 'clear');
  }

  writeBack(
    user: string,
    sessionKey: string,
    snapshot: Record<string, unknown>,
    returned: Record<string, unknown>,
  ): Promise<WriteBackResult> {
    return this.mutate(user, sessionKey, async (id, b, now) => {
      const where = `write-back for user ${JSON.stringify(user)}, session ${JSON.stringify(sessionKey)}`;
      const plan = computeWriteBack(varsObject(b.vars), snapshot, returned);
      if (!plan.ok) return this.rejectWriteBack(where, plan.reason);
      const vars = new Map(b.vars);
      for (const name of plan.changed) {
        if (!Object.hasOwn(plan.next, name)) {
          vars.delete(name);
          continue;
        }
        const json = JSON.stringify(plan.next[name]);
        try {
          this.checkValueSize(name, json);
        } catch (e) {
          return this.rejectWriteBack(where, `Write-back rejected: ${(e as Error).message}`);
        }
        vars.set(name, json);
      }
      try {
        this.checkBucketSize(vars, 'the write-back was not applied');
      } catch (e) {
        return this.rejectWriteBack(where, `Write-back rejected: ${(e as Error).message}`);
      }
      if (plan.strippedReserved.length > 0) {
        this.logger.warn(`${where}: ignored changes to reserved identity keys ${plan.strippedReserved.join(', ')}.`);
      }
      const reason = plan.changed.length > 0 ? 'write-back' : 'touch';
      await this.commit(id, { ...b, vars, lastUsed: now }, reason);
      return { applied: true, changed: plan.changed, strippedReserved: plan.strippedReserved };
    });
  }

  async sweep(): Promise<number> {
    const now = this.clock.now();
    const writes: Promise<void>[] = [];
    for (const [id, b] of this.buckets) {
      if (this.isExpired(b, now)) writes.push(this.commit(id, undefined, 'expired'));
    }
    await Promise.all(writes);
    return writes.length;
  }

  async flush(): Promise<void> {
    while (this.queues.size > 0) {
      await Promise.all([...this.queues.values()].map((q) => q.done ?? Promise.resolve()));
    }
    await this.storage.flush();
  }

  // --- internals ---

  /** Runs `fn` on the bucket's live state, or on a fresh bucket when it is missing or expired. */
  private async mutate<T>(
    user: string,
    sessionKey: string,
    fn: (id: string, bucket: LiveBucket, now: number) => Promise<T>,
  ): Promise<T> {
    checkOwner(user, sessionKey);
    const id = bucketIdOf(user, sessionKey);
    const now = this.clock.now();
    const fresh: LiveBucket = { user, sessionKey, createdAt: now, lastUsed: now, vars: new Map() };
    return fn(id, this.live(id, now) ?? fresh, now);
  }

  /** Makes `next` (or the bucket's removal) the bucket's state, announces it, and persists it. */
  private commit(id: string, next: LiveBucket | undefined, reason: StoreChangeReason): Promise<void> {
    if (next) this.buckets.set(id, next);
    else this.buckets.delete(id);
    const durable = this.persist(id);
    this.changes.fire({ bucketId: id, reason });
    return durable;
  }

  private persist(id: string): Promise<void> {
    let q = this.queues.get(id);
    if (!q) {
      q = { waiters: [] };
      this.queues.set(id, q);
    }
    const queue = q;
    const acknowledged = new Promise<void>((resolve, reject) => queue.waiters.push({ resolve, reject }));
    queue.done ??= this.drain(id, queue);
    return acknowledged;
  }

  private async drain(id: string, q: PersistQueue): Promise<void> {
    try {
      while (q.waiters.length > 0) {
        const batch = q.waiters.splice(0);
        // The state at write time carries every change committed so far.
        const b = this.buckets.get(id);
        const record = b ? recordFromBucket(b) : undefined;
        try {
          if (record) await this.storage.put(id, record);
          else await this.storage.delete(id);
          if (record) this.saved.set(id, record);
          else this.saved.delete(id);
          for (const w of batch) w.resolve();
        } catch (e) {
          // A refused call must leave nothing behind: the bucket goes back to
          // what storage holds, and every change built on the lost one (still
          // queued) is refused with it.
          const failed = [...batch, ...q.waiters.splice(0)];
          const err = new SessionError(
            `Could not save the session store (bucket ${id}): ${e instanceof Error ? e.message : String(e)}. Nothing was stored.`,
            { cause: e },
          );
          this.logger.error(err.message);
          const rec = this.saved.get(id);
          const restored = rec ? bucketFromRecord(rec, id, this.logger) : undefined;
          if (restored) this.buckets.set(id, restored);
          else this.buckets.delete(id);
          this.changes.fire({ bucketId: id, reason: 'load' });
          for (const w of failed) w.reject(err);
        }
      }
    } finally {
      this.queues.delete(id);
    }
  }

  private rejectWriteBack(where: string, reason: string): Promise<WriteBackResult> {
    this.logger.warn(`${where}: ${reason}`);
    return Promise.resolve({ applied: false, reason });
  }

  private checkValueSize(name: string, json: string): void {
    const size = utf8Bytes(json);
    if (size > this.limits.maxValueBytes) {
      throw new SessionError(
        `Value of '${name}' is too large: ${size} bytes of JSON, over the per-value limit (maxValueBytes) of ` +
          `${this.limits.maxValueBytes} bytes. Nothing was stored.`,
      );
    }
  }

  private checkBucketSize(vars: ReadonlyMap<string, string>, consequence: string): void {
    const size = bucketBytes(vars);
    if (size > this.limits.maxBucketBytes) {
      throw new SessionError(
        `The session would hold ${size} bytes of JSON, over the per-session limit (maxBucketBytes) of ` +
          `${this.limits.maxBucketBytes} bytes; ${consequence}. Nothing was stored.`,
      );
    }
  }

  private live(id: string, now = this.clock.now()): LiveBucket | undefined {
    const b = this.buckets.get(id);
    return b && !this.isExpired(b, now) ? b : undefined;
  }

  private isExpired(b: LiveBucket, now: number): boolean {
    return now >= b.lastUsed + this.ttlMs;
  }

  private view(id: string, b: LiveBucket): BucketView {
    return {
      id,
      user: b.user,
      sessionKey: b.sessionKey,
      ...(b.clientName !== undefined ? { clientName: b.clientName } : {}),
      createdAt: b.createdAt,
      lastUsed: b.lastUsed,
      expiresAt: b.lastUsed + this.ttlMs,
      vars: varsObject(b.vars),
    };
  }

  private async load(): Promise<void> {
    const records = await this.storage.loadAll();
    const now = this.clock.now();
    for (const [storedId, raw] of records) {
      const b = bucketFromRecord(raw, storedId, this.logger);
      if (!b) continue;
      if (this.isExpired(b, now)) {
        await this.storage.delete(storedId);
        continue;
      }
      const id = bucketIdOf(b.user, b.sessionKey);
      const other = this.buckets.get(id);
      if (!other || other.lastUsed < b.lastUsed) this.buckets.set(id, b);
      if (id === storedId) this.saved.set(id, recordFromBucket(b));
      if (id !== storedId) {
        // Stored under a foreign key (hand-edited, or an older id scheme): move it home.
        this.logger.warn(`Session bucket stored as ${JSON.stringify(storedId)} belongs under ${JSON.stringify(id)}; moving it.`);
        const moved = recordFromBucket(this.buckets.get(id)!);
        await this.storage.put(id, moved);
        this.saved.set(id, moved);
        await this.storage.delete(storedId);
      }
    }
  }

  private startSweeper(intervalMs: number): void {
    this.sweeper = setInterval(() => {
      this.sweep().catch((e: unknown) => this.logger.error(`Session sweep failed: ${String(e)}`));
    }, intervalMs);
    // The sweeper alone must never keep a process (CLI, tests) alive.
    this.sweeper.unref();
  }
}

function checkOwner(user: unknown, sessionKey: unknown): void {
  if (typeof user !== 'string' || user === '') {
    throw new SessionError(`Session user must be a non-empty string, got ${JSON.stringify(user) ?? String(user)}.`);
  }
  if (typeof sessionKey !== 'string' || sessionKey === '') {
    throw new SessionError(`Session key must be a non-empty string, got ${JSON.stringify(sessionKey) ?? String(sessionKey)}.`);
  }
}

function requirePositive(option: string, v: number): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new SessionError(`Session store option ${option} must be a positive number, got ${String(v)}.`);
  }
}
