// A bucket with its values as JSON text (StoredBucket), and its conversion
// to and from the version 1 BucketRecord (values as JSON values), which the
// JSON state file and VS Code workspace state hold.

import { silentLogger, type Logger } from '../host';
import { jsonProblem, utf8Bytes } from '../json/json-value';
import { validateVariableName } from './variable-names';
import type { BucketRecord, StoredBucket } from './types';

/** Size of the bucket's variables as one JSON object, in UTF-8 bytes. */
export function bucketBytes(vars: ReadonlyMap<string, string>): number {
  // Equal to utf8Bytes(JSON.stringify(object)) without building the string: {"k":v,...}
  let total = 2 + Math.max(0, vars.size - 1);
  for (const [name, json] of vars) total += utf8Bytes(JSON.stringify(name)) + 1 + utf8Bytes(json);
  return total;
}

/** The variables as a fresh object (a deep copy). */
export function varsObject(vars: ReadonlyMap<string, string>): Record<string, unknown> {
  // fromEntries defines own properties, so a variable named __proto__ stays data.
  return Object.fromEntries([...vars].map(([k, json]) => [k, JSON.parse(json) as unknown]));
}

export function recordFromBucket(b: StoredBucket): BucketRecord {
  const rec: BucketRecord = {
    user: b.user,
    sessionKey: b.sessionKey,
    vars: varsObject(b.vars),
    createdAt: b.createdAt,
    lastUsed: b.lastUsed,
  };
  if (b.clientName !== undefined) rec.clientName = b.clientName;
  return rec;
}

/**
 * A stored record checked back into a bucket. A record that is unusable as a
 * whole is skipped (undefined); a single bad variable is dropped. Both warn,
 * naming the stored id, so nothing disappears silently.
 */
export function bucketFromRecord(raw: unknown, storedId: string, logger: Logger = silentLogger): StoredBucket | undefined {
  const where = `session bucket ${JSON.stringify(storedId)}`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    logger.warn(`Skipping stored ${where}: it is not an object.`);
    return undefined;
  }
  const r = raw as Partial<Record<keyof BucketRecord, unknown>>;
  const bad: string[] = [];
  if (typeof r.user !== 'string' || r.user === '') bad.push('"user" is not a non-empty string');
  if (typeof r.sessionKey !== 'string' || r.sessionKey === '') bad.push('"sessionKey" is not a non-empty string');
  if (!isFiniteNumber(r.createdAt)) bad.push('"createdAt" is not a number');
  if (!isFiniteNumber(r.lastUsed)) bad.push('"lastUsed" is not a number');
  if (typeof r.vars !== 'object' || r.vars === null || Array.isArray(r.vars)) bad.push('"vars" is not an object');
  if (r.clientName !== undefined && typeof r.clientName !== 'string') bad.push('"clientName" is not a string');
  if (bad.length > 0) {
    logger.warn(`Skipping stored ${where}: ${bad.join('; ')}.`);
    return undefined;
  }
  const vars = new Map<string, string>();
  for (const [name, value] of Object.entries(r.vars as Record<string, unknown>)) {
    const problem = validateVariableName(name) ?? jsonProblem(value, `${JSON.stringify(name)}`);
    if (problem) {
      logger.warn(`Dropping variable ${JSON.stringify(name)} of stored ${where}: ${problem}`);
      continue;
    }
    vars.set(name, JSON.stringify(value));
  }
  const b: StoredBucket = {
    user: r.user as string,
    sessionKey: r.sessionKey as string,
    createdAt: r.createdAt as number,
    lastUsed: r.lastUsed as number,
    vars,
    ...(typeof r.clientName === 'string' ? { clientName: r.clientName } : {}),
  };
  return b;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
