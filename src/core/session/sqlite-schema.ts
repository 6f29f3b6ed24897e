// The SQLite session database: its schema, how a file of an older schema is
// upgraded, and how it is opened by both of its connections (reads in the
// server's thread, writes in the writer thread).

import type Database from 'better-sqlite3';
import { sqliteLib } from '../lazy-libs';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

const SCHEMA_VERSION = 2;
/** How long a write waits for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 10_000;
/**
 * Pages of a new file. A set writes one page as one WAL frame (24 bytes
 * more); a frame of a 4 KiB page always spans two of the kernel's 4 KiB
 * pages, so each commit dirtied 8 KiB, where a frame of 2 KiB dirties one
 * kernel page half of the time (6 KiB on average). Files made with another
 * size keep it (SQLite cannot change it in WAL mode).
 */
const PAGE_SIZE = 2048;

// One table, in key order (bucket, name): a bucket's own row (name '') holds
// who it belongs to and when it was made; each variable is a row beside it,
// stamped with when it was written. A bucket's last use is the latest stamp
// of its rows, so a set writes only its variable's row, one leaf page (one
// WAL frame) whatever the store holds, and a read of a bucket is one range
// of adjacent rows. No index on the stamps: it would cost every set a page
// more, while the sweep that would use it runs once a minute.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  bucket_id TEXT NOT NULL,
  name TEXT NOT NULL,
  json TEXT,
  at INTEGER NOT NULL,
  user TEXT,
  session_key TEXT,
  created_at INTEGER,
  client_name TEXT,
  PRIMARY KEY (bucket_id, name)
) WITHOUT ROWID;
`;

// Version 1 kept buckets and variables in two tables: every set wrote a page of each.
const FROM_V1 = `
INSERT INTO entries (bucket_id, name, json, at, user, session_key, created_at, client_name)
  SELECT id, '', NULL, last_used, user, session_key, created_at, client_name FROM buckets;
INSERT INTO entries (bucket_id, name, json, at)
  SELECT v.bucket_id, v.name, v.json, b.created_at FROM vars v JOIN buckets b ON b.id = v.bucket_id;
DROP TABLE vars;
DROP TABLE buckets;
`;

/**
 * Opens (creating or upgrading) the database: WAL, so readers never wait for
 * the writer, and synchronous=FULL, so a commit returns once it is on disk.
 */
export function openDatabase(path: string): Database.Database {
  const db = new (sqliteLib())(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    retryBusy(() => {
      // Before WAL is turned on: that writes the header of a new file, with its page size.
      db.pragma(`page_size = ${PAGE_SIZE}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      if (version(db) < SCHEMA_VERSION) upgrade(db);
      const v = version(db);
      if (v > SCHEMA_VERSION) throw new Error(`it was written by a newer MCC (schema ${v}; this one knows ${SCHEMA_VERSION})`);
    });
    return db;
  } catch (e) {
    db.close();
    throw new Error(`Cannot open the session database ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function version(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

// In one write transaction, checked again inside it: another process may have upgraded meanwhile.
function upgrade(db: Database.Database): void {
  db.transaction(() => {
    const v = version(db);
    if (v >= SCHEMA_VERSION) return;
    db.exec(SCHEMA);
    if (v === 1) db.exec(FROM_V1);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
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
