// The extension's settings as one typed object, read through a small
// configuration shape so the defaults and bounds are testable in Node.
import { userInfo } from 'node:os';
import type { Principal } from '../core/identity';
import { parseExposeMode, type ExposeMode } from '../core/expose';

/** The part of vscode.WorkspaceConfiguration used here. */
export interface ConfigLike {
  get<T>(section: string): T | undefined;
}

export type RevealMode = 'always' | 'onError' | 'never';

export interface Settings {
  port: number;
  owner: Principal;
  usersFile: string | undefined;
  ttlSeconds: number;
  maxValueBytes: number | undefined;
  maxBucketBytes: number | undefined;
  maxOutputBytes: number | undefined;
  catalogs: string[];
  reveal: RevealMode;
  perRun: boolean;
  /** An MCP session idle this long is closed (0 = never). */
  mcpSessionIdleSeconds: number;
  /** mcc.tools.expose: how agents see the catalog (applied live, no restart). */
  expose: ExposeMode;
  /** mcc.sandbox: 'default' runs every tool without `sandbox: false` in the default sandbox. */
  sandbox: 'off' | 'default';
}

/** Settings whose change needs the server (runtime + HTTP) to be reopened. */
export const SERVER_SETTINGS = [
  'mcc.server.port',
  'mcc.server.mcpSessionIdleSeconds',
  'mcc.identity',
  'mcc.usersFile',
  'mcc.session',
  'mcc.runner',
  'mcc.sandbox',
] as const;

export function osUserName(): string {
  try {
    const name = userInfo().username;
    if (name) return name;
  } catch {
    // Containers can lack a passwd entry for the uid.
  }
  return process.env.USER || process.env.USERNAME || 'owner';
}

export function readSettings(c: ConfigLike, defaultUser: () => string = osUserName): Settings {
  const groups = stringList(c.get('identity.groups'));
  const ttlHours = positive(c.get('session.ttlHours')) ?? 24;
  return {
    port: portNumber(c.get('server.port')),
    owner: {
      user: nonEmpty(c.get('identity.user')) ?? defaultUser(),
      email: nonEmpty(c.get('identity.email')) ?? '',
      groups: groups ?? ['admin'],
      grants: [],
    },
    usersFile: nonEmpty(c.get('usersFile')),
    // Fractions of an hour are allowed (tests use a tiny TTL); at least one second.
    ttlSeconds: Math.max(1, Math.round(ttlHours * 3600)),
    maxValueBytes: positiveInt(c.get('session.maxValueBytes')),
    maxBucketBytes: positiveInt(c.get('session.maxBucketBytes')),
    maxOutputBytes: positiveInt(c.get('runner.maxOutputBytes')),
    catalogs: stringList(c.get('catalogs')) ?? ['tools.yaml'],
    reveal: revealMode(c.get('terminal.reveal')),
    perRun: c.get('terminal.perRun') === true,
    mcpSessionIdleSeconds: idleSeconds(c.get('server.mcpSessionIdleSeconds')),
    expose: parseExposeMode(c.get('tools.expose')) ?? 'auto',
    sandbox: c.get('sandbox') === 'default' ? 'default' : 'off',
  };
}

/** How often to sweep expired buckets: often enough for a short TTL, at most once a minute. */
export function sweepIntervalMs(ttlSeconds: number): number {
  return Math.min(60_000, Math.max(250, Math.floor((ttlSeconds * 1000) / 4)));
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function stringList(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const items = v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
  return items;
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

function positiveInt(v: unknown): number | undefined {
  const n = positive(v);
  return n === undefined ? undefined : Math.floor(n);
}

function portNumber(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535 ? v : 0;
}

function idleSeconds(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 1800;
}

function revealMode(v: unknown): RevealMode {
  return v === 'always' || v === 'never' ? v : 'onError';
}
