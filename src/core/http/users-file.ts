// The users file: extra principals and their tokens for other local clients.
import { readFile } from 'node:fs/promises';
import { yamlLib } from '../lazy-libs';
import type { Principal } from '../identity';
import type { UsersConfig } from '../users';

export type { UserEntry, UsersConfig } from '../users';
import { referencedVariables, substituteEnv } from '../catalog/substitute';

/** The shortest bearer token accepted anywhere (owner or users file). */
export const MIN_TOKEN_LENGTH = 16;

const FILE_KEYS = new Set(['users', 'anonymous']);
const USER_KEYS = new Set(['user', 'email', 'groups', 'tools', 'token', 'token_sha256']);

export class UsersFileError extends Error {}

export async function loadUsersFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<UsersConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsersFileError(`${path}: cannot read the users file (${(e as Error).message})`);
  }
  return parseUsers(text, path, env);
}

export function parseUsers(text: string, path: string, env: NodeJS.ProcessEnv = process.env): UsersConfig {
  const { LineCounter, parseDocument } = yamlLib();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const line = lines.linePos(err.pos[0]).line;
    throw new UsersFileError(`${path}:${line}: invalid YAML: ${err.message.split('\n')[0]}`);
  }
  // Where a node starts, so every message names its line (as the editor's diagnostics and `mcc check` show it).
  const at = (keys: Array<string | number>): string => {
    const node = doc.getIn(keys, true) as { range?: [number, number, number] } | undefined;
    return `${path}:${node?.range ? lines.linePos(node.range[0]).line : 1}`;
  };
  const raw: unknown = doc.toJS();
  const tokenEnvNames = tokenVariables(raw);
  const root: unknown = substituteEnv(raw, env);
  if (root === null || root === undefined) return { users: [], anonymous: false };
  const warnings: string[] = [];
  if (typeof root !== 'object' || Array.isArray(root)) throw new UsersFileError(`${path}:1: expected a mapping with 'users:'`);
  const r = root as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!FILE_KEYS.has(k) && !k.startsWith('x-')) warnings.push(`${at([k])}: unknown key '${k}' ignored`);
  const anonymous = r.anonymous ?? false;
  if (typeof anonymous !== 'boolean') throw new UsersFileError(`${at(['anonymous'])}: 'anonymous' must be true or false`);
  const list = r.users ?? [];
  if (!Array.isArray(list)) throw new UsersFileError(`${at(['users'])}: 'users' must be a list`);
  const seen = new Set<string>();
  const users = list.map((u, i) => {
    const where = `${at(['users', i])}: users[${i}]`;
    if (typeof u !== 'object' || u === null || Array.isArray(u)) throw new UsersFileError(`${where}: expected a mapping`);
    const e = u as Record<string, unknown>;
    for (const k of Object.keys(e)) if (!USER_KEYS.has(k)) warnings.push(`${where}: unknown key '${k}' ignored (known: ${[...USER_KEYS].join(', ')})`);
    if (typeof e.user !== 'string' || e.user === '') throw new UsersFileError(`${where}: 'user' is required`);
    if (e.user === 'anonymous') throw new UsersFileError(`${where}: 'anonymous' is reserved for token-less callers`);
    if (seen.has(e.user)) throw new UsersFileError(`${where}: user '${e.user}' appears twice`);
    seen.add(e.user);
    const token = optionalString(e.token, `${where}.token`);
    const sha = optionalString(e.token_sha256, `${where}.token_sha256`)?.toLowerCase();
    if (!token && !sha) throw new UsersFileError(`${where}: give 'token' or 'token_sha256'`);
    if (token && sha) throw new UsersFileError(`${where}: give only one of 'token' and 'token_sha256'`);
    if (sha && !/^[0-9a-f]{64}$/.test(sha)) throw new UsersFileError(`${where}: 'token_sha256' must be 64 hex digits`);
    if (token && token.length < MIN_TOKEN_LENGTH) throw new UsersFileError(`${where}: 'token' is too short (at least ${MIN_TOKEN_LENGTH} characters)`);
    const principal: Principal = {
      user: e.user,
      email: optionalString(e.email, `${where}.email`) ?? '',
      groups: stringList(e.groups, `${where}.groups`),
      grants: stringList(e.tools, `${where}.tools`),
    };
    return { principal, ...(token ? { token } : {}), ...(sha ? { tokenSha256: sha } : {}) };
  });
  return { users, anonymous, ...(warnings.length ? { warnings } : {}), ...(tokenEnvNames.length ? { tokenEnvNames } : {}) };
}

// Read before substitution: which variables the tokens come from.
function tokenVariables(raw: unknown): string[] {
  const list = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).users : undefined;
  if (!Array.isArray(list)) return [];
  const names = new Set<string>();
  for (const u of list) {
    if (typeof u !== 'object' || u === null) continue;
    for (const field of ['token', 'token_sha256']) {
      const v = (u as Record<string, unknown>)[field];
      if (typeof v === 'string') for (const n of referencedVariables(v)) names.add(n);
    }
  }
  return [...names].sort();
}

function optionalString(v: unknown, where: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new UsersFileError(`${where} must be a string`);
  return v;
}

function stringList(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new UsersFileError(`${where} must be a list of strings`);
  return v as string[];
}
