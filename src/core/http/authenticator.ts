// Bearer-token authentication. Tokens are compared as SHA-256 digests with
// timingSafeEqual, so neither length nor content leaks through timing.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ANONYMOUS, type Principal } from '../identity';
import { MIN_TOKEN_LENGTH, type UsersConfig } from './users-file';

interface Credential {
  digest: Buffer;
  principal: Principal;
}

/** A configuration that would make two callers indistinguishable, or a weak owner token. */
export class AuthConfigError extends Error {}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: string };

export class Authenticator {
  private credentials: Credential[] = [];
  private anonymous = false;

  constructor(owner: { token: string; principal: Principal }, users?: UsersConfig) {
    this.setUsers(owner, users);
  }

  setUsers(owner: { token: string; principal: Principal }, users?: UsersConfig): void {
    // Sessions and buckets belong to a user name, so names must tell callers apart.
    if (owner.principal.user === ANONYMOUS.user) {
      throw new AuthConfigError(`the owner cannot be named '${ANONYMOUS.user}': that name is reserved for token-less callers`);
    }
    if (users?.users.some((u) => u.principal.user === owner.principal.user)) {
      throw new AuthConfigError(`the users file defines '${owner.principal.user}', which is the owner's name; rename one of them`);
    }
    if (owner.token.length < MIN_TOKEN_LENGTH) {
      throw new AuthConfigError(`the owner token is too short (at least ${MIN_TOKEN_LENGTH} characters)`);
    }
    this.credentials = [{ digest: sha256(owner.token), principal: owner.principal }];
    for (const u of users?.users ?? []) {
      const digest = u.token !== undefined ? sha256(u.token) : Buffer.from(u.tokenSha256 ?? '', 'hex');
      this.credentials.push({ digest, principal: u.principal });
    }
    this.anonymous = users?.anonymous ?? false;
  }

  authenticate(authorization: string | undefined): AuthResult {
    if (authorization === undefined || authorization === '') {
      if (this.anonymous) return { ok: true, principal: ANONYMOUS };
      return { ok: false, reason: 'missing bearer token' };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return { ok: false, reason: 'the Authorization header must be "Bearer <token>"' };
    const presented = sha256(m[1]);
    let found: Principal | undefined;
    // Compare against every credential, without an early exit.
    for (const c of this.credentials) {
      if (c.digest.length === presented.length && timingSafeEqual(c.digest, presented) && !found) found = c.principal;
    }
    return found ? { ok: true, principal: found } : { ok: false, reason: 'invalid bearer token' };
  }
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A fresh owner token: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
