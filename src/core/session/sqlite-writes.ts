// Every write of the SQLite store, run in the writer thread (sqlite-writer.ts)
// on its own connection. A batch is one transaction, each operation in a
// savepoint of its own, so one refused operation never takes the others
// with it, and the batch costs one commit (one fsync): group commit.

import type Database from 'better-sqlite3';
import { applyChange, applyTouch, isExpired } from './bucket-change';
import { readBucket, statements, type BucketRow, type Statements } from './sqlite-schema';
import type { BucketChange, ChangeOutcome, StoredBucket, Touch } from './types';

export type WriteOp =
  | { op: 'change'; id: string; change: BucketChange }
  | { op: 'touch'; touches: Touch[] }
  | { op: 'remove'; id: string }
  | { op: 'sweep'; now: number; ttlMs: number }
  | { op: 'import'; id: string; bucket: StoredBucket; ttlMs: number; now: number };

export type WriteResult = { ok: true; value: unknown } | { ok: false; error: string };

export class SqliteWrites {
  private readonly q: Statements;
  private readonly tx: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Database.Statement>;

  constructor(private readonly db: Database.Database) {
    this.q = statements(db);
    this.tx = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT mcc_op'),
      release: db.prepare('RELEASE mcc_op'),
      rollbackTo: db.prepare('ROLLBACK TO mcc_op'),
    };
  }

  /** Runs the batch as one transaction; a failed commit fails every operation in it. */
  commit(batch: readonly WriteOp[]): WriteResult[] {
    const results: WriteResult[] = [];
    try {
      this.tx.begin.run();
      for (const op of batch) {
        this.tx.savepoint.run();
        try {
          results.push({ ok: true, value: this.run(op) });
          this.tx.release.run();
        } catch (e) {
          this.tx.rollbackTo.run();
          this.tx.release.run();
          results.push({ ok: false, error: message(e) });
        }
      }
      this.tx.commit.run();
      return results;
    } catch (e) {
      if (this.db.inTransaction) this.tx.rollback.run();
      return batch.map(() => ({ ok: false, error: message(e) }));
    }
  }

  private run(op: WriteOp): unknown {
    switch (op.op) {
      case 'change':
        return this.change(op.id, op.change);
      case 'touch':
        return this.touch(op.touches);
      case 'remove':
        this.q.deleteVars.run(op.id);
        return this.q.deleteBucket.run(op.id).changes > 0;
      case 'sweep':
        this.q.sweepVars.run(op.now - op.ttlMs);
        return (this.q.sweepBuckets.all(op.now - op.ttlMs) as Array<{ id: string }>).map((r) => r.id);
      case 'import':
        return this.importIfAbsent(op.id, op.bucket, op.ttlMs, op.now);
    }
  }

  private change(id: string, change: BucketChange): ChangeOutcome {
    const { outcome, next, replacesExpired } = applyChange(readBucket(this.q, id), change);
    if (!next || !outcome.ok) return outcome;
    if (replacesExpired) this.q.deleteVars.run(id);
    this.writeRow(id, next);
    for (const [name, json] of change.set) this.q.putVar.run(id, name, json);
    for (const name of outcome.removed) this.q.deleteVar.run(id, name);
    return outcome;
  }

  private touch(touches: readonly Touch[]): void {
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
  }

  private importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): boolean {
    const row = this.q.getBucket.get(id) as BucketRow | undefined;
    if (row && !isExpired({ lastUsed: row.last_used }, now, ttlMs)) return false;
    this.q.deleteVars.run(id);
    this.writeRow(id, bucket);
    for (const [name, json] of bucket.vars) this.q.putVar.run(id, name, json);
    return true;
  }

  private writeRow(id: string, b: StoredBucket): void {
    this.q.putBucket.run(id, b.user, b.sessionKey, b.createdAt, b.lastUsed, b.clientName ?? null);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
