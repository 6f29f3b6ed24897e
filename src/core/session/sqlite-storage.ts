// Session storage in one SQLite file (better-sqlite3): the headless default.
//
// One row per bucket and one per variable, so a set writes one small row
// whatever the store holds. WAL mode with synchronous=FULL: a change is
// acknowledged once its commit is on disk. Changes queued while a commit
// runs go into the next transaction together (group commit), each in its own
// savepoint, so one refused change never takes the others with it. Several
// processes may share the file: writes take SQLite's write lock (waiting up
// to the busy timeout), reads see the last committed state.

import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyChange, applyTouch, isExpired } from './bucket-change';
import type { BucketChange, ChangeOutcome, SessionStorage, StoredBucket, Touch } from './types';

const SCHEMA_VERSION = 1;
const BUSY_TIMEOUT_MS = 10_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS buckets (
  id TEXT PRIMARY KEY,
  user TEXT NOT NULL,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used INTEGER NOT NULL,
  client_name TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS buckets_last_used ON buckets (last_used);
CREATE TABLE IF NOT EXISTS vars (
  bucket_id TEXT NOT NULL,
  name TEXT NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (bucket_id, name)
) WITHOUT ROWID;
`;

interface BucketRow {
  id: string;
  user: string;
  session_key: string;
  created_at: number;
  last_used: number;
  client_name: string | null;
}

interface Queued {
  op: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export interface SqliteStorageOptions {
  /** 'full' (default): an acknowledged change survives a power loss; 'normal': it survives a crash of the process only. */
  synchronous?: 'full' | 'normal';
}

export class SqliteStorage implements SessionStorage {
  readonly description: string;
  private readonly db: Database.Database;
  private readonly q: ReturnType<typeof prepare>;
  /** Runs a function in one read transaction (better-sqlite3 wraps it in BEGIN/COMMIT). */
  private readonly inRead: (fn: () => unknown) => unknown;
  private queue: Queued[] = [];
  private scheduled: Promise<void> | undefined;

  constructor(
    readonly path: string,
    opts: SqliteStorageOptions = {},
  ) {
    this.description = `SQLite ${path}`;
    createPrivateFile(path);
    this.db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${opts.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      this.migrate();
      this.q = prepare(this.db);
      this.inRead = this.db.transaction((fn: () => unknown) => fn());
    } catch (e) {
      this.db.close();
      throw new Error(`Cannot open the session database ${path}: ${(e as Error).message}`, { cause: e });
    }
  }

  get(id: string): Promise<StoredBucket | undefined> {
    return Promise.resolve(this.readTx(() => this.readBucket(id)));
  }

  list(): Promise<Array<[string, StoredBucket]>> {
    return Promise.resolve(
      this.readTx(() => {
        const vars = new Map<string, Map<string, string>>();
        for (const v of this.q.allVars.all() as Array<{ bucket_id: string; name: string; json: string }>) {
          let m = vars.get(v.bucket_id);
          if (!m) vars.set(v.bucket_id, (m = new Map<string, string>()));
          m.set(v.name, v.json);
        }
        return (this.q.allBuckets.all() as BucketRow[]).map((r) => [r.id, fromRow(r, vars.get(r.id) ?? new Map<string, string>())] as [string, StoredBucket]);
      }),
    );
  }

  change(id: string, change: BucketChange): Promise<ChangeOutcome> {
    return this.enqueue(() => {
      const { outcome, next, replacesExpired } = applyChange(this.readBucket(id), change);
      if (!next || !outcome.ok) return outcome;
      if (replacesExpired) this.q.deleteVars.run(id);
      this.writeRow(id, next);
      for (const [name, json] of change.set) this.q.putVar.run(id, name, json);
      for (const name of outcome.removed) this.q.deleteVar.run(id, name);
      return outcome;
    });
  }

  touch(touches: readonly Touch[]): Promise<void> {
    return this.enqueue(() => {
      for (const t of touches) {
        const row = this.q.getBucket.get(t.id) as BucketRow | undefined;
        if (row && !isExpired({ lastUsed: row.last_used }, t.lastUsed, t.ttlMs)) {
          this.q.touchRow.run(t.lastUsed, t.clientName ?? null, t.id);
          continue;
        }
        // Missing or expired: the bucket starts again, empty.
        this.q.deleteVars.run(t.id);
        this.writeRow(t.id, applyTouch(undefined, t));
      }
    });
  }

  remove(id: string): Promise<boolean> {
    return this.enqueue(() => {
      this.q.deleteVars.run(id);
      return this.q.deleteBucket.run(id).changes > 0;
    });
  }

  sweep(now: number, ttlMs: number): Promise<string[]> {
    return this.enqueue(() => {
      const cutoff = now - ttlMs;
      this.q.sweepVars.run(cutoff);
      return (this.q.sweepBuckets.all(cutoff) as Array<{ id: string }>).map((r) => r.id);
    });
  }

  importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): Promise<boolean> {
    return this.enqueue(() => {
      const row = this.q.getBucket.get(id) as BucketRow | undefined;
      if (row && !isExpired({ lastUsed: row.last_used }, now, ttlMs)) return false;
      this.q.deleteVars.run(id);
      this.writeRow(id, bucket);
      for (const [name, json] of bucket.vars) this.q.putVar.run(id, name, json);
      return true;
    });
  }

  async close(): Promise<void> {
    while (this.scheduled) await this.scheduled;
    if (this.db.open) this.db.close();
  }

  // --- internals ---

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(`it was written by a newer MCC (schema ${version}; this one knows ${SCHEMA_VERSION})`);
    }
    this.db.exec(SCHEMA);
    if (version < SCHEMA_VERSION) this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  private readTx<T>(fn: () => T): T {
    // One read transaction: the bucket row and its variables from the same commit.
    return this.inRead(fn) as T;
  }

  private readBucket(id: string): StoredBucket | undefined {
    const row = this.q.getBucket.get(id) as BucketRow | undefined;
    if (!row) return undefined;
    const vars = new Map((this.q.getVars.all(id) as Array<{ name: string; json: string }>).map((v) => [v.name, v.json] as const));
    return fromRow(row, vars);
  }

  private writeRow(id: string, b: StoredBucket): void {
    this.q.putBucket.run(id, b.user, b.sessionKey, b.createdAt, b.lastUsed, b.clientName ?? null);
  }

  private enqueue<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (v: unknown) => void, reject });
      // setImmediate: requests whose bytes already arrived queue their changes first.
      this.scheduled ??= new Promise<void>((done) => setImmediate(() => {
        this.scheduled = undefined;
        this.commit(this.queue.splice(0));
        done();
      }));
    });
  }

  /** One transaction for the whole batch; each change in a savepoint of its own. */
  private commit(batch: Queued[]): void {
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.q.begin.run();
      for (const item of batch) {
        this.q.savepoint.run();
        try {
          results.push({ ok: true, value: item.op() });
          this.q.release.run();
        } catch (error) {
          this.q.rollbackTo.run();
          this.q.release.run();
          results.push({ ok: false, error });
        }
      }
      this.q.commit.run();
    } catch (e) {
      if (this.db.inTransaction) this.q.rollback.run();
      for (const item of batch) item.reject(e);
      return;
    }
    batch.forEach((item, i) => {
      const r = results[i];
      if (r?.ok) item.resolve(r.value);
      else item.reject(r?.error);
    });
  }
}

function prepare(db: Database.Database) {
  return {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT mcc_change'),
    release: db.prepare('RELEASE mcc_change'),
    rollbackTo: db.prepare('ROLLBACK TO mcc_change'),
    getBucket: db.prepare('SELECT * FROM buckets WHERE id = ?'),
    getVars: db.prepare('SELECT name, json FROM vars WHERE bucket_id = ?'),
    allBuckets: db.prepare('SELECT * FROM buckets'),
    allVars: db.prepare('SELECT bucket_id, name, json FROM vars'),
    putBucket: db.prepare(
      'INSERT OR REPLACE INTO buckets (id, user, session_key, created_at, last_used, client_name) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    touchRow: db.prepare('UPDATE buckets SET last_used = max(last_used, ?), client_name = coalesce(?, client_name) WHERE id = ?'),
    putVar: db.prepare('INSERT OR REPLACE INTO vars (bucket_id, name, json) VALUES (?, ?, ?)'),
    deleteVar: db.prepare('DELETE FROM vars WHERE bucket_id = ? AND name = ?'),
    deleteVars: db.prepare('DELETE FROM vars WHERE bucket_id = ?'),
    deleteBucket: db.prepare('DELETE FROM buckets WHERE id = ?'),
    sweepVars: db.prepare('DELETE FROM vars WHERE bucket_id IN (SELECT id FROM buckets WHERE last_used <= ?)'),
    sweepBuckets: db.prepare('DELETE FROM buckets WHERE last_used <= ? RETURNING id'),
  };
}

function fromRow(r: BucketRow, vars: Map<string, string>): StoredBucket {
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
function createPrivateFile(path: string): void {
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
