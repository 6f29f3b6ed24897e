// What a BucketChange does to a bucket, as a pure function. The memory,
// workspace-state and SQLite backends run it inside their own atomic step;
// the Redis backend runs the same rules as a Lua script (redis-scripts.ts).

import { bucketBytes } from './bucket-record';
import type { BucketChange, ChangeOutcome, StoredBucket } from './types';

export interface AppliedChange {
  outcome: ChangeOutcome;
  /** The bucket to store; undefined when nothing is written. */
  next?: StoredBucket;
  /** Whether `current` was there but expired, so its old variables must go. */
  replacesExpired: boolean;
}

export function isExpired(b: Pick<StoredBucket, 'lastUsed'>, now: number, ttlMs: number): boolean {
  return now >= b.lastUsed + ttlMs;
}

export function applyChange(current: StoredBucket | undefined, c: BucketChange): AppliedChange {
  const expired = current !== undefined && isExpired(current, c.now, c.ttlMs);
  const live = expired ? undefined : current;
  if (!live && !c.create) return { outcome: { ok: true, removed: [], written: false }, replacesExpired: false };

  const conflicts = [...c.expect].filter(([name, text]) => (live?.vars.get(name) ?? null) !== text).map(([name]) => name);
  if (conflicts.length > 0) return { outcome: { ok: false, conflicts }, replacesExpired: false };

  const vars = new Map(live?.vars);
  for (const [name, json] of c.set) vars.set(name, json);
  const removed = c.remove.filter((name) => vars.delete(name));
  if (c.set.size > 0) {
    const size = bucketBytes(vars);
    if (size > c.maxBucketBytes) return { outcome: { ok: false, tooLarge: size }, replacesExpired: false };
  }
  const clientName = c.clientName ?? live?.clientName;
  const next: StoredBucket = {
    user: c.user,
    sessionKey: c.sessionKey,
    createdAt: live?.createdAt ?? c.now,
    lastUsed: Math.max(live?.lastUsed ?? 0, c.now),
    ...(clientName !== undefined ? { clientName } : {}),
    vars,
  };
  return { outcome: { ok: true, removed, written: true }, next, replacesExpired: expired };
}

/** The bucket after a last-use refresh: a missing or expired one starts empty. */
export function applyTouch(current: StoredBucket | undefined, t: { user: string; sessionKey: string; lastUsed: number; clientName?: string; ttlMs: number }): StoredBucket {
  const live = current && !isExpired(current, t.lastUsed, t.ttlMs) ? current : undefined;
  const clientName = t.clientName ?? live?.clientName;
  return {
    user: t.user,
    sessionKey: t.sessionKey,
    createdAt: live?.createdAt ?? t.lastUsed,
    lastUsed: Math.max(live?.lastUsed ?? 0, t.lastUsed),
    ...(clientName !== undefined ? { clientName } : {}),
    vars: live?.vars ?? new Map(),
  };
}
