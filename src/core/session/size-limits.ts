// The two size limits of the session store, as the errors a caller reads:
// one value's JSON (maxValueBytes) and a whole bucket's (maxBucketBytes).
import { utf8Bytes } from '../json/json-value';
import { SessionError } from './errors';
import type { StoreLimits } from './types';

/** Throws when the JSON of `name` is over the per-value limit. */
export function checkValueSize(limits: StoreLimits, name: string, json: string): void {
  const size = utf8Bytes(json);
  if (size > limits.maxValueBytes) {
    throw new SessionError(
      `Value of '${name}' is too large: ${size} bytes of JSON, over the per-value limit (maxValueBytes) of ` +
        `${limits.maxValueBytes} bytes. Nothing was stored.`,
    );
  }
}

/** The error of a change that would make a bucket too large. */
export function bucketTooLarge(limits: StoreLimits, size: number, consequence: string): SessionError {
  return new SessionError(
    `The session would hold ${size} bytes of JSON, over the per-session limit (maxBucketBytes) of ` +
      `${limits.maxBucketBytes} bytes; ${consequence}. Nothing was stored.`,
  );
}
