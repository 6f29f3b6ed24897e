// Who is calling: derived from the authenticated request on every call,
// never read from the session store.

export interface Principal {
  user: string;
  email: string;
  groups: string[];
  /** Explicit tool-key grants from the users file. */
  grants: string[];
  /** True for requests served without a token (users file `anonymous: true`). */
  anonymous?: boolean;
}

/** The reserved, read-only identity keys of every session store. */
export const RESERVED_KEYS = ['user', 'email', 'groups', 'tools'] as const;
export type ReservedKey = (typeof RESERVED_KEYS)[number];

export function isReservedKey(name: string): name is ReservedKey {
  return (RESERVED_KEYS as readonly string[]).includes(name);
}

export interface IdentityKeys {
  readonly user: string;
  readonly email: string;
  readonly groups: readonly string[];
  /** Sorted keys of the tools this caller may execute. */
  readonly tools: readonly string[];
}

export function identityKeys(p: Principal, allowedToolKeys: readonly string[]): IdentityKeys {
  return {
    user: p.user,
    email: p.email,
    groups: [...p.groups],
    tools: [...allowedToolKeys].sort(),
  };
}

export const ANONYMOUS: Principal = { user: 'anonymous', email: '', groups: ['public'], grants: [], anonymous: true };
