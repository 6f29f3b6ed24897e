// The session store's options, checked once when it opens, and the check
// of every bucket's owner: a bad option or owner is a SessionError naming it.
import { SessionError } from './errors';
import { DEFAULT_LIMITS, DEFAULT_TTL_SECONDS, type SessionStorage, type StoreLimits } from './types';
import type { Clock, Logger } from '../host';

export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
/** Last-use refreshes of one bucket are written at most this often. */
export const MAX_TOUCH_INTERVAL_MS = 60_000;

export interface SessionStoreOptions {
  storage: SessionStorage;
  clock?: Clock;
  ttlSeconds?: number;
  limits?: Partial<StoreLimits>;
  logger?: Logger;
  /** How often expired buckets are removed; 0 turns the periodic sweep off. */
  sweepIntervalMs?: number;
  /** How often queued last-use refreshes are written (default: a minute, or a tenth of the TTL if shorter); 0: only on flush. */
  touchIntervalMs?: number;
}

export interface CheckedOptions {
  ttlMs: number;
  limits: StoreLimits;
  sweepMs: number;
  touchMs: number;
}

export function checkOptions(opts: SessionStoreOptions): CheckedOptions {
  const ttlSeconds = opts.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  requirePositive('ttlSeconds', ttlSeconds);
  const limits: StoreLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  requirePositive('limits.maxValueBytes', limits.maxValueBytes);
  requirePositive('limits.maxBucketBytes', limits.maxBucketBytes);
  const ttlMs = ttlSeconds * 1000;
  const sweepMs = requireInterval('sweepIntervalMs', opts.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  const touchMs = requireInterval('touchIntervalMs', opts.touchIntervalMs ?? Math.min(MAX_TOUCH_INTERVAL_MS, Math.max(100, ttlMs / 10)));
  return { ttlMs, limits, sweepMs, touchMs };
}

export function checkOwner(user: unknown, sessionKey: unknown): void {
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

function requireInterval(option: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new SessionError(`Session store option ${option} must be a number >= 0, got ${String(v)}.`);
  }
  return v;
}
