// The SQLite session database: its schema, the statements both of its
// connections use (reads in the server's thread, writes in the writer
// thread), and how rows become buckets.

import type Database from 'better-sqlite3';
import { sqliteLib } from '../lazy-libs';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoredBucket } from './types';

const SCHEMA_VERSION = 1;
/** How long a write waits for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 10_000;

// One row per bucket and one per variable, so a set writes one small row
// whatever the store holds. No index on last use: it would cost every set a
// page more, while the sweep that would use it runs once a minute.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS buckets (
  id TEXT PRIMARY KEY,
  user TEXT NOT NULL,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used INTEGER NOT NULL,
  client_name TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vars (
  bucket_id TEXT NOT NULL,
  name TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (bucket_id, name)
) WITHOUT ROWID;
`;

export interface BucketRow {
  id: string;
  user: string;
  session_key: string;
  created_at: number;
  last_used: number;
  client_name: string | null;
}

/**
 * Opens (creating) the database: WAL, so readers never wait for the writer,
 * and synchronous=FULL, so a commit returns once it is on disk.
 */
export function openDatabase(path: string): Database.Database {
  const db = new (sqliteLib())(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    retryBusy(() => {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new Error(`it was written by a newer MCC (schema ${version}; this one knows ${SCHEMA_VERSION})`);
      }
      db.exec(SCHEMA);
      if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    });
    return db;
  } catch (e) {
    db.close();
    throw new Error(`Cannot open the session database ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Runs `step` (idempotent) again after a short pause while SQLite answers
 * SQLITE_BUSY, for up to `budgetMs`. Two processes that open a new file at
 * once both turn WAL on, each holding a read lock and wanting the write
 * lock: SQLite then answers one of them SQLITE_BUSY at once, without its
 * busy wait (waiting could deadlock), and that one must simply try again.
 */
export function retryBusy<T>(step: () => T, budgetMs = BUSY_TIMEOUT_MS, pause: (ms: number) => void = sleepSync): T {
  const until = Date.now() + budgetMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      return step();
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw e;
      pause(wait);
    }
  }
}

// Opening is synchronous: a pause there blocks, briefly and only under contention.
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function statements(db: Database.Database) {
  return {
    getBucket: db.prepare('SELECT * FROM buckets WHERE id = ?'),
    getVars: db.prepare('SELECT name, json FROM vars WHERE bucket_id = ?'),
    allBuckets: db.prepare('SELECT * FROM buckets'),
    allVars: db.prepare('SELECT bucket_id, name, json FROM vars'),
    putBucket: db.prepare('INSERT OR REPLACE INTO buckets (id, user, session_key, created_at, last_used, client_name) VALUES (?, ?, ?, ?, ?, ?)'),
    touchRow: db.prepare('UPDATE buckets SET last_used = max(last_used, ?), client_name = coalesce(?, client_name) WHERE id = ?'),
    putVar: db.prepare('INSERT OR REPLACE INTO vars (bucket_id, name, json) VALUES (?, ?, ?)'),
    deleteVar: db.prepare('DELETE FROM vars WHERE bucket_id = ? AND name = ?'),
    deleteVars: db.prepare('DELETE FROM vars WHERE bucket_id = ?'),
    deleteBucket: db.prepare('DELETE FROM buckets WHERE id = ?'),
    sweepVars: db.prepare('DELETE FROM vars WHERE bucket_id IN (SELECT id FROM buckets WHERE last_used <= ?)'),
    sweepBuckets: db.prepare('DELETE FROM buckets WHERE last_used <= ? RETURNING id'),
  };
}

export type Statements = ReturnType<typeof statements>;

export function readBucket(q: Statements, id: string): StoredBucket | undefined {
  const row = q.getBucket.get(id) as BucketRow | undefined;
  if (!row) return undefined;
  const vars = new Map((q.getVars.all(id) as Array<{ name: string; json: string }>).map((v) => [v.name, v.json] as const));
  return fromRow(row, vars);
}

export function fromRow(r: BucketRow, vars: Map<string, string>): StoredBucket {
  return {
    user: r.user,
    sessionKey: r.session_key,
    createdAt: r.created_at,
    lastUsed: r.last_used,
    ...(r.client_name !== null ? { clientName: r.client_name } : {}),
    vars,
  };
}

/** Session variables may hold secrets (tokens a tool stashed): the file is the owner's alone. */
export function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return;
  }
  // SQLite gives its -wal and -shm files the database file's mode.
  chmodSync(path, 0o600);
}
