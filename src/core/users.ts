// The users of a server beside its owner, as a users file lists them
// (http/users-file.ts reads it): below every floor that needs them, since
// the server's secrets (secrets.ts) are their tokens too.
import type { Principal } from './identity';

export interface UserEntry {
  principal: Principal;
  /** Either the token itself or its SHA-256 (hex, lowercase). */
  token?: string;
  tokenSha256?: string;
}

export interface UsersConfig {
  users: UserEntry[];
  anonymous: boolean;
  /** Unknown keys (likely typos, e.g. `group:` for `groups:`), one line each. */
  warnings?: string[];
  /** Server variables a token or token_sha256 was read from (`${VAR}`): secrets no tool may see. */
  tokenEnvNames?: string[];
}
