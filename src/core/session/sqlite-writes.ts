// Every write of the SQLite store, run in the writer thread (sqlite-writer.ts)
// on its own connection. A batch is one transaction, each operation in a
// savepoint of its own, so one refused operation never takes the others
// with it, and the batch costs one commit (one fsync): group commit.

import type Database from 'better-sqlite3';
import { applyChange, applyTouch, isExpired } from './bucket-change';
import { readBucket, statements, type Statements } from './sqlite-rows';
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
        return this.q.deleteBucket.all(op.id).length > 0;
      case 'sweep':
        return (this.q.sweep.all(op.now - op.ttlMs) as Array<{ bucket_id: string; name: string }>).filter((r) => r.name === '').map((r) => r.bucket_id);
      case 'import':
        return this.importIfAbsent(op.id, op.bucket, op.ttlMs, op.now);
    }
  }

  // The common case, a live bucket whose client is known, writes only the changed variables' rows.
  private change(id: string, change: BucketChange): ChangeOutcome {
    const current = readBucket(this.q, id);
    const { outcome, next, replacesExpired } = applyChange(current, change);
    if (!next || !outcome.ok) return outcome;
    if (!current || replacesExpired) this.startBucket(id, next);
    else if (change.set.size === 0 || outcome.removed.length > 0 || next.clientName !== current.clientName) {
      // No written row would carry the last use (or the client changed): the bucket's own row does.
      this.q.touchHead.run(next.lastUsed, next.clientName ?? null, id);
    }
    for (const [name, json] of change.set) this.q.putVar.run(id, name, json, change.now);
    for (const name of outcome.removed) this.q.deleteVar.run(id, name);
    return outcome;
  }

  private touch(touches: readonly Touch[]): void {
    for (const t of touches) {
      const current = readBucket(this.q, t.id);
      if (current && !isExpired(current, t.lastUsed, t.ttlMs)) this.q.touchHead.run(t.lastUsed, t.clientName ?? null, t.id);
      // Missing or expired: the bucket starts again, empty.
      else this.startBucket(t.id, applyTouch(undefined, t));
    }
  }

  private importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): boolean {
    const current = readBucket(this.q, id);
    if (current && !isExpired(current, now, ttlMs)) return false;
    this.startBucket(id, bucket);
    // Stamped with its creation: the bucket's own row carries its last use.
    for (const [name, json] of bucket.vars) this.q.putVar.run(id, name, json, Math.min(bucket.createdAt, bucket.lastUsed));
    return true;
  }

  /** Replaces whatever the bucket held by its own row alone. */
  private startBucket(id: string, b: StoredBucket): void {
    this.q.deleteBucket.all(id);
    this.q.putHead.run(id, b.lastUsed, b.user, b.sessionKey, b.createdAt, b.clientName ?? null);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
