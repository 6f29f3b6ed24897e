// Session handles (SEP-2567): how a client without an MCP session (every
// 2026-07-28 client) keeps its variables across calls. MCC issues a handle,
// the client passes it back as the `session` argument, and the handle names
// a bucket inside the caller's own user. A handle is bound to the principal
// that got it by an HMAC over the user name, so it is checked without any
// server state (any instance sharing the secret can check it) and another
// principal presenting it is told it is unknown, exactly as for a made-up
// one. A handle is never authentication: the bearer token still decides who
// calls.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'mcc-h1';
// Base64url of 16 bytes: 22 characters. The whole handle stays a valid bucket key.
const HANDLE = /^mcc-h1\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

export class SessionHandles {
  private readonly key: Buffer;

  /** `secret`: shared by every instance that must accept the same handles (the owner token serves). */
  constructor(secret: string) {
    this.key = createHmac('sha256', 'mcc session handles').update(secret, 'utf8').digest();
  }

  /** A new handle for `user`. */
  issue(user: string): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${PREFIX}.${nonce}.${this.mac(user, nonce).toString('base64url')}`;
  }

  /** Whether `handle` was issued by this server to `user`. */
  owns(user: string, handle: string): boolean {
    const m = HANDLE.exec(handle);
    if (!m) return false;
    const given = Buffer.from(m[2], 'base64url');
    const expected = this.mac(user, m[1]);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(user: string, nonce: string): Buffer {
    return createHmac('sha256', this.key).update(`${user}\n${nonce}`, 'utf8').digest().subarray(0, 16);
  }
}

/** What a caller is told of a handle that is not theirs, malformed, or made up: all the same. */
export function unknownHandle(): string {
  return "Unknown session handle: it was not issued to you by this server. Call without 'session' to get a new one.";
}
