// Where `mcc serve` keeps its sessions: the --store argument, parsed.
//   sqlite:PATH                      one SQLite file (the default, under the state directory)
//   redis://[user:pass@]HOST:PORT/DB  Redis or Valkey (rediss:// for TLS), shared by several instances
//   memory:                          this process only, gone when it stops

import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export type StoreSpec =
  | { kind: 'sqlite'; path: string }
  | { kind: 'redis'; url: string }
  | { kind: 'memory' };

export const STORE_SPEC_FORMS = 'sqlite:PATH, redis://HOST:PORT/DB (or rediss://) or memory:';

/** The spec, or why the text is not one. Relative SQLite paths resolve against `cwd`. */
export function parseStoreSpec(text: string, cwd = process.cwd()): StoreSpec | { error: string } {
  if (text === 'memory:' || text === 'memory') return { kind: 'memory' };
  if (text.startsWith('sqlite:')) {
    const raw = text.slice('sqlite:'.length);
    if (raw === '') return { error: `--store sqlite: needs a file path, e.g. sqlite:./sessions.db` };
    const path = raw === '~' || raw.startsWith('~/') ? join(homedir(), raw.slice(1)) : raw;
    return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(cwd, path) };
  }
  if (/^rediss?:\/\//.test(text)) {
    let u: URL;
    try {
      u = new URL(text);
    } catch {
      return { error: `--store ${text}: not a valid URL` };
    }
    if (!u.hostname) return { error: `--store ${text}: the URL has no host` };
    const db = u.pathname.replace(/^\//, '');
    if (db !== '' && !/^\d+$/.test(db)) return { error: `--store ${text}: the database after the host must be a number, e.g. redis://127.0.0.1:6379/0` };
    return { kind: 'redis', url: text };
  }
  return { error: `--store '${text}' is not a store; use ${STORE_SPEC_FORMS}` };
}

/** The SQLite file that goes with a version 1 state file: sessions.json -> sessions.db. */
export function sqlitePathFor(statePath: string): string {
  return statePath.endsWith('.json') ? `${statePath.slice(0, -'.json'.length)}.db` : `${statePath}.db`;
}
