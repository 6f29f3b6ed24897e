// Which bucket a request's variables live in. X-MCC-Session-Key is a
// client-chosen bucket key inside the caller's own user namespace, so a
// client can resume its bucket after a restart.

export const SESSION_KEY_HEADER = 'x-mcc-session-key';
const KEY = /^[A-Za-z0-9._:-]{1,128}$/;

export function sessionKeyError(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = Array.isArray(value) ? value : [value];
  if (v.length !== 1) return 'send X-MCC-Session-Key once';
  if (!KEY.test(v[0])) return 'X-MCC-Session-Key must be 1-128 characters of letters, digits, ".", "_", ":" or "-"';
  return undefined;
}

/** The part of a request's context that names its bucket. */
export interface BucketKeySource {
  sessionId?: string;
  http?: { req?: { headers: { get(name: string): string | null } } };
}

/**
 * The bucket a request's variables live in, decided here alone: the
 * client's X-MCC-Session-Key (checked by the HTTP guard before), else its
 * MCP session, else the connection's fixed key (stdio's one client).
 */
export function bucketKeyOf(extra: BucketKeySource, fixedKey?: string): string {
  const key = extra.http?.req?.headers.get(SESSION_KEY_HEADER) || extra.sessionId || fixedKey;
  if (!key) throw new Error('request has neither an X-MCC-Session-Key nor an MCP session');
  return key;
}
