// The SQLite store's rows (sqlite-schema.ts): the statements both connections
// use, and how a bucket's rows become a bucket. A bucket's own row has the
// name ''; its last use is the latest `at` of all its rows.

import type Database from 'better-sqlite3';
import type { StoredBucket } from './types';

export interface EntryRow {
  bucket_id: string;
  name: string;
  json: string | null;
  at: number;
  user: string | null;
  session_key: string | null;
  created_at: number | null;
  client_name: string | null;
}

const COLUMNS = 'bucket_id, name, json, at, user, session_key, created_at, client_name';

export function statements(db: Database.Database) {
  return {
    // In key order: the bucket's own row first, then its variables.
    getRows: db.prepare(`SELECT ${COLUMNS} FROM entries WHERE bucket_id = ? ORDER BY name`),
    allRows: db.prepare(`SELECT ${COLUMNS} FROM entries ORDER BY bucket_id, name`),
    putHead: db.prepare(`INSERT OR REPLACE INTO entries (${COLUMNS}) VALUES (?, '', NULL, ?, ?, ?, ?, ?)`),
    touchHead: db.prepare("UPDATE entries SET at = max(at, ?), client_name = coalesce(?, client_name) WHERE bucket_id = ? AND name = ''"),
    putVar: db.prepare('INSERT OR REPLACE INTO entries (bucket_id, name, json, at) VALUES (?, ?, ?, ?)'),
    deleteVar: db.prepare("DELETE FROM entries WHERE bucket_id = ? AND name = ? AND name <> ''"),
    deleteBucket: db.prepare("DELETE FROM entries WHERE bucket_id = ? RETURNING name"),
    sweep: db.prepare(
      "DELETE FROM entries WHERE bucket_id IN (SELECT bucket_id FROM entries GROUP BY bucket_id HAVING max(at) <= ?) RETURNING bucket_id, name",
    ),
  };
}

export type Statements = ReturnType<typeof statements>;

export function readBucket(q: Statements, id: string): StoredBucket | undefined {
  return toBucket(q.getRows.all(id) as EntryRow[]);
}

/** Every bucket, from all rows in key order. */
export function allBuckets(q: Statements): Array<[string, StoredBucket]> {
  const out: Array<[string, StoredBucket]> = [];
  let rows: EntryRow[] = [];
  const flush = (): void => {
    const b = toBucket(rows);
    if (b) out.push([rows[0]?.bucket_id, b]);
    rows = [];
  };
  for (const r of q.allRows.iterate() as IterableIterator<EntryRow>) {
    if (rows.length > 0 && rows[0]?.bucket_id !== r.bucket_id) flush();
    rows.push(r);
  }
  flush();
  return out;
}

/** One bucket's rows (its own first) as the bucket; undefined without its own row. */
function toBucket(rows: readonly EntryRow[]): StoredBucket | undefined {
  const head = rows[0];
  if (!head || head.name !== '') return undefined;
  let lastUsed = head.at;
  const vars = new Map<string, string>();
  for (let i = 1; i < rows.length; i++) {
    const r = rows[i];
    if (r.at > lastUsed) lastUsed = r.at;
    vars.set(r.name, r.json as string);
  }
  return {
    user: head.user as string,
    sessionKey: head.session_key as string,
    createdAt: head.created_at as number,
    lastUsed,
    ...(head.client_name !== null ? { clientName: head.client_name } : {}),
    vars,
  };
}
