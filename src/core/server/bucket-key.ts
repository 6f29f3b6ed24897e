// Which bucket a request's variables live in. X-MCC-Session-Key is a
// client-chosen bucket key inside the caller's own user namespace, so a
// client can resume its bucket after a restart.

import { unknownHandle, type SessionHandles } from '../session/session-handles';
import { TASK_KEY_PREFIX } from '../call/task-records';

export const SESSION_KEY_HEADER = 'x-mcc-session-key';
const KEY = /^[A-Za-z0-9._:-]{1,128}$/;

export function sessionKeyError(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = Array.isArray(value) ? value : [value];
  if (v.length !== 1) return 'send X-MCC-Session-Key once';
  if (!KEY.test(v[0])) return 'X-MCC-Session-Key must be 1-128 characters of letters, digits, ".", "_", ":" or "-"';
  if (v[0].startsWith(TASK_KEY_PREFIX)) return `X-MCC-Session-Key may not begin with '${TASK_KEY_PREFIX}': those buckets hold tasks`;
  return undefined;
}

/** The part of a request's context that names its bucket. */
export interface BucketKeySource {
  sessionId?: string;
  http?: { req?: { headers: { get(name: string): string | null } } };
}

/** Where one request's variables live; `fresh` when the caller named no bucket and this one is new. */
export type BucketChoice = { key: string; fresh?: true } | { refused: string };

export interface BucketRules {
  user: string;
  /** Issues and checks session handles (session-handles.ts). */
  handles: SessionHandles;
  /** The bucket of a connection whose requests name none (stdio's one client). */
  fixedKey?: string;
}

/**
 * The bucket a request's variables live in, decided here alone: the
 * session handle the caller passed (checked to be theirs), else its
 * X-MCC-Session-Key (checked by the HTTP guard before), else its MCP
 * session, else the connection's fixed key (stdio's one client), else,
 * for a caller with none of these (a 2026-07-28 client), a new handle.
 */
export function chooseBucket(extra: BucketKeySource, session: unknown, rules: BucketRules): BucketChoice {
  if (session !== undefined && session !== null && session !== '') {
    if (typeof session !== 'string' || !rules.handles.owns(rules.user, session)) return { refused: unknownHandle() };
    return { key: session };
  }
  return requestBucket(extra, rules);
}

/** The bucket a request names without a handle, or a new one. */
export function requestBucket(extra: BucketKeySource, rules: BucketRules): { key: string; fresh?: true } {
  const key = extra.http?.req?.headers.get(SESSION_KEY_HEADER) || extra.sessionId || rules.fixedKey;
  return key ? { key } : { key: rules.handles.issue(rules.user), fresh: true };
}
