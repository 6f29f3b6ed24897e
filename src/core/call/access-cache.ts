// What a principal may run, computed once per (catalog, principal) instead of
// on every call: with thousands of tools, filtering and sorting them again
// for each execute and search cost more than the call itself. The runtime
// drops the whole cache when the catalog changes. Entries are frozen, so no
// caller can change what the next one is handed.
import { accessibleTools } from '../access';
import type { ToolDef } from '../catalog/types';
import { identityKeys, type IdentityKeys, type Principal } from '../identity';

/** Principals are rebuilt on every request, so entries are found by what they hold. */
const MAX_ENTRIES = 1000;

interface Access {
  tools: readonly ToolDef[];
  /** Their keys, sorted as the identity key `tools` is. */
  keys: readonly string[];
}

export class AccessCache {
  /** By groups and grants: everything access depends on. */
  private readonly byAccess = new Map<string, Access>();
  /** By the whole principal: the identity keys also name the user. */
  private readonly identities = new Map<string, IdentityKeys>();

  constructor(private readonly tools: () => Iterable<ToolDef>) {}

  /** The tools the principal may run, sorted by key. */
  toolsFor(p: Principal): readonly ToolDef[] {
    return this.access(p).tools;
  }

  identityOf(p: Principal): IdentityKeys {
    const key = JSON.stringify([p.user, p.email, p.groups, p.grants]);
    let identity = this.identities.get(key);
    if (!identity) {
      const made = identityKeys(p, []);
      identity = Object.freeze({ ...made, groups: Object.freeze(made.groups), tools: this.access(p).keys });
      remember(this.identities, key, identity);
    }
    return identity;
  }

  clear(): void {
    this.byAccess.clear();
    this.identities.clear();
  }

  private access(p: Principal): Access {
    const key = JSON.stringify([p.groups, p.grants]);
    let access = this.byAccess.get(key);
    if (!access) {
      const tools = Object.freeze(accessibleTools(p, this.tools()));
      access = { tools, keys: Object.freeze(identityKeys(p, tools.map((t) => t.key)).tools) };
      remember(this.byAccess, key, access);
    }
    return access;
  }
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  // Oldest out first; a server rarely sees more principals than this.
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
