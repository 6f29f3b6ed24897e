// Session store persistence contract. One record per bucket so that a host
// (workspace state, a JSON file) writes a bucket, not the whole store.

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

export interface SessionStorage {
  /** Every stored bucket, keyed by bucket id. */
  loadAll(): Promise<Map<string, BucketRecord>>;
  /** Resolves once the write is durable. */
  put(id: string, record: BucketRecord): Promise<void>;
  delete(id: string): Promise<void>;
  /** Resolves once every pending write is durable. */
  flush(): Promise<void>;
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
  bucketId: string;
  reason: StoreChangeReason;
}

import type { Disposable, Listener } from '../host';

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
  | { applied: false; reason: string };

/**
 * The session store as the runtime and hosts use it. Every mutating call
 * resolves only after the storage write is durable, and calls on one bucket
 * are serialised so concurrent writers lose nothing.
 * Errors (bad name, reserved name, size limits) throw SessionError with a
 * message fit to show the caller.
 */
export interface SessionStoreApi {
  readonly onDidChange: (listener: Listener<StoreChange>) => Disposable;
  /** Live buckets (expired ones are never listed). */
  list(): BucketView[];
  bucket(id: string): BucketView | undefined;
  /** The bucket's variables (a deep copy); {} when none. Does not touch. */
  variables(user: string, sessionKey: string): Record<string, unknown>;
  /** Marks the bucket used (creating it if missing) and records the client name. */
  touch(user: string, sessionKey: string, clientName?: string): Promise<void>;
  set(user: string, sessionKey: string, name: string, value: unknown): Promise<void>;
  /** Returns whether the variable existed. */
  delete(user: string, sessionKey: string, name: string): Promise<boolean>;
  /** Removes all variables of the bucket (and the bucket). */
  clear(user: string, sessionKey: string): Promise<void>;
  /** Applies a fn tool's returned context relative to the snapshot it was given. */
  writeBack(
    user: string,
    sessionKey: string,
    snapshot: Record<string, unknown>,
    returned: Record<string, unknown>,
  ): Promise<WriteBackResult>;
  /** Removes expired buckets; returns how many. */
  sweep(): Promise<number>;
  /** Resolves once all pending writes are durable. */
  flush(): Promise<void>;
}
