// X-MCC-Session-Key: a client-chosen bucket key inside the caller's own
// user namespace, so a client can resume its bucket after a restart.

export const SESSION_KEY_HEADER = 'x-mcc-session-key';
const KEY = /^[A-Za-z0-9._:-]{1,128}$/;

export function sessionKeyError(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = Array.isArray(value) ? value : [value];
  if (v.length !== 1) return 'send X-MCC-Session-Key once';
  if (!KEY.test(v[0])) return 'X-MCC-Session-Key must be 1-128 characters of letters, digits, ".", "_", ":" or "-"';
  return undefined;
}
