// The session store: one bucket of variables per (user, session key), with a
// TTL, size limits and write-back, over a SessionStorage backend.
//
// The backend is the source of truth and every read goes to it, so processes
// sharing a SQLite file or a Redis server read each other's acknowledged
// writes. Each change is one atomic backend call, resolved once durable.
// Last-use refreshes are queued and written in batches (touch-queue.ts).

import { Emitter, silentLogger, systemClock, type Clock, type Logger } from '../host';
import { bucketIdOf } from './bucket-id';
import { applyTouch, isExpired } from './bucket-change';
import { varsObject } from './bucket-record';
import { SessionError } from './errors';
import { jsonProblem } from '../json/json-value';
import { KeyedMutex } from './keyed-mutex';
import { validateVariableName } from './variable-names';
import { TouchQueue } from './touch-queue';
import {
  type BucketChange,
  type BucketView,
  type ChangeOutcome,
  type SessionStorage,
  type SessionStoreApi,
  type StoreChange,
  type StoreChangeReason,
  type StoreLimits,
  type StoredBucket,
  type WriteBackResult,
} from './types';
import { planWriteBack, snapshotText } from './write-back';
import { errorText, StoreIO } from './store-io';
import { checkOptions, checkOwner, type SessionStoreOptions } from './store-options';
import { bucketTooLarge, checkValueSize } from './size-limits';

export { bucketIdOf } from './bucket-id';
export { SessionError } from './errors';

export { DEFAULT_SWEEP_INTERVAL_MS, MAX_TOUCH_INTERVAL_MS, type SessionStoreOptions } from './store-options';

type ChangeRequest = Pick<BucketChange, 'set' | 'remove' | 'expect' | 'create'> & { clientName?: string };

const NO_EXPECTATIONS: ReadonlyMap<string, string | null> = new Map();

export class SessionStore implements SessionStoreApi {
  private readonly changes = new Emitter<StoreChange>();
  readonly onDidChange = this.changes.event;
  private readonly touches = new TouchQueue();
  private readonly locks = new KeyedMutex();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly io: StoreIO;

  private constructor(
    private readonly storage: SessionStorage,
    private readonly clock: Clock,
    readonly ttlMs: number,
    readonly limits: Readonly<StoreLimits>,
    private readonly logger: Logger,
  ) {
    this.io = new StoreIO(storage.description, logger);
  }

  /** Removes expired buckets, then starts the sweeper and the last-use writer. */
  static async open(opts: SessionStoreOptions): Promise<SessionStore> {
    const { ttlMs, limits, sweepMs, touchMs } = checkOptions(opts);
    const store = new SessionStore(opts.storage, opts.clock ?? systemClock, ttlMs, limits, opts.logger ?? silentLogger);
    await store.sweep();
    if (sweepMs > 0) store.every(sweepMs, () => store.sweep(), 'Session sweep');
    if (touchMs > 0) store.every(touchMs, () => store.writeTouches(), 'Writing last-use times');
    return store;
  }

  /** Where the buckets live, for logs. */
  get description(): string {
    return this.storage.description;
  }

  /** Stops the timers and drops listeners. Pending writes still complete (see flush). */
  dispose(): void {
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.changes.dispose();
  }

  /** Stops the timers, writes what is queued and releases the backend. */
  async close(): Promise<void> {
    this.dispose();
    try {
      await this.flush();
    } finally {
      await this.storage.close();
    }
  }

  async list(): Promise<BucketView[]> {
    const now = this.clock.now();
    const stored = await this.io.read(() => this.storage.list(), 'list');
    const ids = new Set(stored.map(([id]) => id));
    // A bucket only a queued touch knows of yet (its first call was a read) is live too.
    const pendingOnly = this.touches.all().filter((t) => !ids.has(t.id)).map((t) => [t.id, undefined] as const);
    const views: BucketView[] = [];
    for (const [id, b] of [...stored, ...pendingOnly]) {
      const live = this.overlay(id, b, now);
      if (live) views.push(this.view(id, live));
    }
    return views.sort((a, b) => b.lastUsed - a.lastUsed);
  }

  async bucket(id: string): Promise<BucketView | undefined> {
    const live = await this.live(id);
    return live && this.view(id, live);
  }

  async variables(user: string, sessionKey: string): Promise<Record<string, unknown>> {
    checkOwner(user, sessionKey);
    const live = await this.live(bucketIdOf(user, sessionKey));
    return live ? varsObject(live.vars) : {};
  }

  touch(user: string, sessionKey: string, clientName?: string): void {
    checkOwner(user, sessionKey);
    const id = bucketIdOf(user, sessionKey);
    this.touches.add({ id, user, sessionKey, lastUsed: this.clock.now(), ttlMs: this.ttlMs, ...(clientName !== undefined ? { clientName } : {}) });
    this.fire(id, 'touch', user, sessionKey);
  }

  async set(user: string, sessionKey: string, name: string, value: unknown, clientName?: string): Promise<void> {
    checkOwner(user, sessionKey);
    const nameProblem = validateVariableName(name);
    if (nameProblem) throw new SessionError(nameProblem);
    const problem = jsonProblem(value);
    if (problem) throw new SessionError(`Cannot store '${name}': ${problem}. Nothing was stored.`);
    const json = JSON.stringify(value);
    checkValueSize(this.limits, name, json);
    const outcome = await this.change(user, sessionKey, 'set', {
      set: new Map([[name, json]]),
      remove: [],
      expect: NO_EXPECTATIONS,
      create: true,
      ...(clientName !== undefined ? { clientName } : {}),
    });
    if (!outcome.ok && 'tooLarge' in outcome) throw bucketTooLarge(this.limits, outcome.tooLarge, `'${name}' was not stored`);
  }

  async delete(user: string, sessionKey: string, name: string): Promise<boolean> {
    checkOwner(user, sessionKey);
    const nameProblem = validateVariableName(name);
    if (nameProblem) throw new SessionError(nameProblem);
    // Deleting from a bucket that does not exist changes nothing and creates nothing.
    const outcome = await this.change(user, sessionKey, 'delete', { set: new Map(), remove: [name], expect: NO_EXPECTATIONS, create: false });
    return outcome.ok && outcome.removed.length > 0;
  }

  async clear(user: string, sessionKey: string): Promise<void> {
    checkOwner(user, sessionKey);
    const id = bucketIdOf(user, sessionKey);
    this.touches.drop(id);
    const existed = await this.io.write(id, () => this.storage.remove(id), 'remove');
    if (existed) this.fire(id, 'clear', user, sessionKey);
  }

  async writeBack(
    user: string,
    sessionKey: string,
    snapshot: Record<string, unknown>,
    returned: Record<string, unknown>,
  ): Promise<WriteBackResult> {
    checkOwner(user, sessionKey);
    const where = `write-back for user ${JSON.stringify(user)}, session ${JSON.stringify(sessionKey)}`;
    const plan = planWriteBack(snapshot, returned);
    if (!plan.ok) return this.rejectWriteBack(where, plan.reason);
    const set = new Map<string, string>();
    for (const [name, value] of plan.set) {
      const json = JSON.stringify(value);
      try {
        checkValueSize(this.limits, name, json);
      } catch (e) {
        return this.rejectWriteBack(where, `Write-back rejected: ${(e as Error).message}`);
      }
      set.set(name, json);
    }
    if (plan.strippedReserved.length > 0) {
      this.logger.warn(`${where}: ignored changes to reserved identity keys ${plan.strippedReserved.join(', ')}.`);
    }
    const changed = [...set.keys(), ...plan.remove];
    if (changed.length === 0) {
      this.touch(user, sessionKey);
      return { applied: true, changed, strippedReserved: plan.strippedReserved };
    }
    // Each key the tool changed must still hold what the tool was shown.
    const expect = new Map(changed.map((name) => [name, snapshotText(snapshot, name)]));
    const outcome = await this.change(user, sessionKey, 'write-back', { set, remove: plan.remove, expect, create: true });
    if (outcome.ok) return { applied: true, changed, strippedReserved: plan.strippedReserved };
    if ('conflicts' in outcome) {
      const names = outcome.conflicts.map((n) => `'${n}'`).join(', ');
      const reason =
        `Write-back refused: ${names} ${outcome.conflicts.length === 1 ? 'was' : 'were'} changed by another call since ` +
        `this tool read the session, so none of its session changes were written. Run it again to build on the current value.`;
      this.logger.warn(`${where}: ${reason}`);
      return { applied: false, reason, conflicts: outcome.conflicts };
    }
    return this.rejectWriteBack(where, `Write-back rejected: ${bucketTooLarge(this.limits, outcome.tooLarge, 'the write-back was not applied').message}`);
  }

  exclusive<T>(user: string, sessionKey: string, fn: () => Promise<T>): Promise<T> {
    checkOwner(user, sessionKey);
    return this.locks.run(bucketIdOf(user, sessionKey), fn);
  }

  async sweep(): Promise<number> {
    // Queued refreshes first: a bucket in use must not be swept for its stale stored last use.
    await this.writeTouches();
    const removed = await this.io.write('(sweep)', () => this.storage.sweep(this.clock.now(), this.ttlMs), 'sweep');
    for (const id of removed) this.fire(id, 'expired');
    return removed.length;
  }

  async flush(): Promise<void> {
    await this.writeTouches();
    await this.io.settled();
  }

  // --- internals ---

  private async change(user: string, sessionKey: string, reason: StoreChangeReason, req: ChangeRequest): Promise<ChangeOutcome> {
    const id = bucketIdOf(user, sessionKey);
    const now = this.clock.now();
    const clientName = req.clientName ?? this.touches.get(id)?.clientName;
    const change: BucketChange = {
      ...req,
      user,
      sessionKey,
      now,
      ttlMs: this.ttlMs,
      maxBucketBytes: this.limits.maxBucketBytes,
      ...(clientName !== undefined ? { clientName } : {}),
    };
    const outcome = await this.io.write(id, () => this.storage.change(id, change));
    if (outcome.ok && outcome.written) {
      // The change carried the bucket's last use: a queued refresh up to now is redundant.
      this.touches.drop(id, now);
      this.fire(id, reason === 'delete' && outcome.removed.length === 0 ? 'touch' : reason, user, sessionKey);
    }
    return outcome;
  }

  private async writeTouches(): Promise<void> {
    const batch = this.touches.take();
    if (batch.length === 0) return;
    try {
      await this.io.write('(last use)', () => this.storage.touch(batch), 'touch');
    } catch {
      // Logged by write(); keep them for the next try unless newer ones came meanwhile.
      for (const t of batch) if (!this.touches.get(t.id)) this.touches.add(t);
    }
  }

  /** The live bucket `id` with its queued last use applied, or undefined. */
  private async live(id: string): Promise<StoredBucket | undefined> {
    const stored = await this.io.read(() => this.storage.get(id));
    return this.overlay(id, stored, this.clock.now());
  }

  private overlay(id: string, stored: StoredBucket | undefined, now: number): StoredBucket | undefined {
    const t = this.touches.get(id);
    const b = t ? applyTouch(stored, t) : stored;
    return b && !isExpired(b, now, this.ttlMs) ? b : undefined;
  }

  private view(id: string, b: StoredBucket): BucketView {
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

  private fire(bucketId: string, reason: StoreChangeReason, user?: string, sessionKey?: string): void {
    this.changes.fire({ bucketId, reason, ...(user !== undefined && sessionKey !== undefined ? { user, sessionKey } : {}) });
  }

  private every(ms: number, job: () => Promise<unknown>, what: string): void {
    const t = setInterval(() => {
      job().catch((e: unknown) => this.logger.error(`${what} failed: ${errorText(e)}`));
    }, ms);
    // The timers alone must never keep a process (CLI, tests) alive.
    t.unref();
    this.timers.push(t);
  }

  private rejectWriteBack(where: string, reason: string): WriteBackResult {
    this.logger.warn(`${where}: ${reason}`);
    return { applied: false, reason };
  }
}
