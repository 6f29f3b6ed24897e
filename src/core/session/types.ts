// Session store contracts: the store as the runtime and hosts use it, and
// the storage backends under it (memory, VS Code workspace state, SQLite,
// Redis). A backend is the source of truth: the store keeps no copy of a
// bucket, so every process on a shared backend reads what any other wrote.

import type { Disposable, Listener } from '../host';

/** A bucket as version 1 persisted it (JSON state file, workspace state). */
export interface BucketRecord {
  user: string;
  sessionKey: string;
  /** The mutable variables only; identity keys are never stored. */
  vars: Record<string, unknown>;
  createdAt: number;
  /** Last use (ms since epoch); the TTL runs from here. */
  lastUsed: number;
  /** MCP client name, when known (for the sidebar). */
  clientName?: string;
}

/**
 * A bucket as backends hand it over. Values are held as their JSON text:
 * that is the deep copy (nobody can reach into stored state), the unit of
 * the size limits, and what a write-back's check compares.
 */
export interface StoredBucket {
  readonly user: string;
  readonly sessionKey: string;
  readonly createdAt: number;
  readonly lastUsed: number;
  readonly clientName?: string;
  /** Variable name -> the value's JSON text. */
  readonly vars: ReadonlyMap<string, string>;
}

/** One atomic change of one bucket; a backend applies all of it or none. */
export interface BucketChange {
  readonly user: string;
  readonly sessionKey: string;
  /** The bucket's new last use (and creation time when it is created). */
  readonly now: number;
  /** A bucket whose last use is this old counts as absent. */
  readonly ttlMs: number;
  readonly clientName?: string;
  /** Name -> JSON text to store. */
  readonly set: ReadonlyMap<string, string>;
  readonly remove: readonly string[];
  /**
   * Name -> the JSON text the variable must hold now (null: must be absent).
   * Any mismatch refuses the whole change (a write-back's check-and-set).
   */
  readonly expect: ReadonlyMap<string, string | null>;
  /** Whether a missing bucket is created (false: the change is then a no-op). */
  readonly create: boolean;
  /** Refused when it sets something and the variables would exceed this (JSON bytes). */
  readonly maxBucketBytes: number;
}

export type ChangeOutcome =
  | { ok: true; /** Names that existed and were removed. */ removed: string[]; /** False when nothing was written. */ written: boolean }
  | { ok: false; /** Names whose value differs from the expectation. */ conflicts: string[] }
  | { ok: false; /** The size the variables would have had. */ tooLarge: number };

/** A coalesced last-use refresh (get_session, execute without write-back). */
export interface Touch {
  readonly id: string;
  readonly user: string;
  readonly sessionKey: string;
  readonly lastUsed: number;
  readonly clientName?: string;
  readonly ttlMs: number;
}

/**
 * A storage backend. Each method is atomic on its own, also against other
 * processes where the backend is shared (SQLite file, Redis); a change
 * resolves only once it is durable to the backend's promise.
 */
export interface SessionStorage {
  /** For logs and errors, e.g. "SQLite /home/me/.local/state/mcc/sessions.db". */
  readonly description: string;
  /** The stored bucket, expired or not (the store decides); undefined when none. */
  get(id: string): Promise<StoredBucket | undefined>;
  /** Every stored bucket (for the sidebar and tests; may include expired ones). */
  list(): Promise<Array<[string, StoredBucket]>>;
  change(id: string, change: BucketChange): Promise<ChangeOutcome>;
  /** Refreshes last use (creating empty buckets that are missing or expired). */
  touch(touches: readonly Touch[]): Promise<void>;
  /** Removes the bucket; resolves whether it existed. */
  remove(id: string): Promise<boolean>;
  /** Removes buckets unused for ttlMs; resolves their ids. Backends that expire on their own return []. */
  sweep(now: number, ttlMs: number): Promise<string[]>;
  /** Stores `bucket` unless a live bucket `id` exists (importing version 1 state). */
  importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): Promise<boolean>;
  /** Waits for pending writes and releases the backend (connections, file handles). */
  close(): Promise<void>;
}

export interface StoreLimits {
  /** Max bytes of one value's JSON (default 64 KiB). */
  maxValueBytes: number;
  /** Max bytes of a bucket's variables as JSON (default 1 MiB). */
  maxBucketBytes: number;
}

export const DEFAULT_LIMITS: StoreLimits = { maxValueBytes: 64 * 1024, maxBucketBytes: 1024 * 1024 };
export const DEFAULT_TTL_SECONDS = 86400;

export type StoreChangeReason = 'set' | 'delete' | 'clear' | 'write-back' | 'expired' | 'touch' | 'load';

export interface StoreChange {
  /** '' for a change of the whole store ('load'). */
  bucketId: string;
  reason: StoreChangeReason;
  /** The bucket's owner, when the change is about one bucket. */
  user?: string;
  sessionKey?: string;
}

/** A live bucket as hosts (sidebar, tests) see it. */
export interface BucketView {
  id: string;
  user: string;
  sessionKey: string;
  clientName?: string;
  createdAt: number;
  lastUsed: number;
  expiresAt: number;
  vars: Record<string, unknown>;
}

export type WriteBackResult =
  | { applied: true; changed: string[]; strippedReserved: string[] }
  | { applied: false; reason: string; /** Names another call changed since the snapshot. */ conflicts?: string[] };

/**
 * The session store as the runtime and hosts use it. Reads go to the
 * backend every time (read-through). Every mutating call resolves only after
 * its change is durable; touch() only queues a last-use refresh.
 * Errors (bad name, reserved name, size limits, a failed write) throw
 * SessionError with a message fit to show the caller.
 */
export interface SessionStoreApi {
  readonly onDidChange: (listener: Listener<StoreChange>) => Disposable;
  /** How long a bucket lives after its last use. */
  readonly ttlMs: number;
  /** Live buckets, most recently used first (expired ones are never listed). */
  list(): Promise<BucketView[]>;
  bucket(id: string): Promise<BucketView | undefined>;
  /** The bucket's variables (a fresh copy); {} when none. Does not touch. */
  variables(user: string, sessionKey: string): Promise<Record<string, unknown>>;
  /** Queues a last-use refresh (written at most once a minute per bucket); creates the bucket if missing. */
  touch(user: string, sessionKey: string, clientName?: string): void;
  /** One durable change; the bucket's last use and client name ride with it. */
  set(user: string, sessionKey: string, name: string, value: unknown, clientName?: string): Promise<void>;
  /** Returns whether the variable existed. */
  delete(user: string, sessionKey: string, name: string): Promise<boolean>;
  /** Removes all variables of the bucket (and the bucket). */
  clear(user: string, sessionKey: string): Promise<void>;
  /**
   * Applies a fn tool's returned context relative to the snapshot it was
   * given: refused whole when a key it changed was changed by another call
   * since the snapshot.
   */
  writeBack(
    user: string,
    sessionKey: string,
    snapshot: Record<string, unknown>,
    returned: Record<string, unknown>,
  ): Promise<WriteBackResult>;
  /** Runs `fn` with no other exclusive() call of this bucket running in this process. */
  exclusive<T>(user: string, sessionKey: string, fn: () => Promise<T>): Promise<T>;
  /** Removes expired buckets; returns how many. */
  sweep(): Promise<number>;
  /** Writes queued last-use refreshes and resolves once all pending writes are durable. */
  flush(): Promise<void>;
}
