// Session storage in one SQLite file (better-sqlite3): the headless default.
//
// Reads run here, on a connection of their own; writes go to a writer thread
// (sqlite-writer.ts) with its own connection, which commits whatever arrived
// meanwhile as one transaction and acknowledges each write once its commit is
// on disk (WAL, synchronous=FULL). Several processes may share the file:
// writes take SQLite's write lock in turn, reads see the last commit.

import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createPrivateFile, openDatabase } from './sqlite-schema';
import { allBuckets, readBucket, statements, type Statements } from './sqlite-rows';
import type { WriterReply, WriterRequest } from './sqlite-writer';
import type { WriteOp } from './sqlite-writes';
import type { BucketChange, ChangeOutcome, SessionStorage, StoredBucket, Touch } from './types';
import { silentLogger, type Logger } from '../host';

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class SqliteStorage implements SessionStorage {
  readonly description: string;
  private readonly db: Database.Database;
  private readonly q: Statements;
  private readonly writer: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly inflight = new Set<Promise<unknown>>();
  private nextSeq = 0;
  /** Writes not yet posted: those of one turn of the event loop go to the writer in one message. */
  private outbox: WriterRequest[] = [];
  /** Operations answered, and the transactions (fsyncs) they took: group commit at work. */
  private readonly done = { writes: 0, commits: 0 };
  private broken: Error | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    readonly path: string,
    private readonly logger: Logger = silentLogger,
  ) {
    this.description = `SQLite ${path}`;
    createPrivateFile(path);
    // Opened (and migrated) here first, so a bad file fails the constructor, not a later write.
    this.db = openDatabase(path);
    this.q = statements(this.db);
    this.writer = new Worker(writerScript(), { workerData: { path } });
    this.writer.on('message', (m: WriterReply | 'closed') => this.settle(m));
    this.writer.on('error', (e) => this.fail(new Error(`the SQLite writer failed: ${e.message}`)));
    this.writer.on('exit', (code) => this.fail(new Error(`the SQLite writer stopped (exit code ${code})`)));
    // Only pending writes keep the process alive.
    this.writer.unref();
  }

  get(id: string): Promise<StoredBucket | undefined> {
    return this.read(() => readBucket(this.q, id));
  }

  list(): Promise<Array<[string, StoredBucket]>> {
    return this.read(() => allBuckets(this.q));
  }

  change(id: string, change: BucketChange): Promise<ChangeOutcome> {
    return this.write({ op: 'change', id, change });
  }

  touch(touches: readonly Touch[]): Promise<void> {
    return this.write({ op: 'touch', touches: [...touches] });
  }

  remove(id: string): Promise<boolean> {
    return this.write({ op: 'remove', id });
  }

  sweep(now: number, ttlMs: number): Promise<string[]> {
    return this.write({ op: 'sweep', now, ttlMs });
  }

  importIfAbsent(id: string, bucket: StoredBucket, ttlMs: number, now: number): Promise<boolean> {
    return this.write({ op: 'import', id, bucket, ttlMs, now });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
      if (!this.broken) {
        this.writer.ref();
        await new Promise<void>((resolve) => {
          this.writer.once('message', () => resolve());
          this.writer.once('exit', () => resolve());
          this.writer.postMessage('close');
        });
      }
      this.broken = new Error('the session database is closed');
      this.logger.info(`${this.description}: ${this.done.writes} changes in ${this.done.commits} commits`);
      await this.writer.terminate();
      if (this.db.open) this.db.close();
    })();
    return this.closing;
  }

  // Each read is one SELECT (a bucket's rows are one range), which SQLite runs on one snapshot: no transaction needed.
  private read<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private write<T>(op: WriteOp): Promise<T> {
    if (this.broken) return Promise.reject(this.broken);
    const seq = ++this.nextSeq;
    if (this.pending.size === 0) this.writer.ref();
    const done = new Promise<T>((resolve, reject) => {
      this.pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      if (this.outbox.length === 0) setImmediate(() => this.post());
      this.outbox.push({ seq, op });
    });
    this.inflight.add(done);
    const forget = (): void => {
      this.inflight.delete(done);
    };
    done.then(forget, forget);
    return done;
  }

  private post(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (this.broken) for (const r of batch) this.pending.get(r.seq)?.reject(this.broken);
    else this.writer.postMessage(batch);
  }

  /** The answers of one commit: each write is acknowledged once the commit it was in is on disk. */
  private settle(m: WriterReply | 'closed'): void {
    if (m === 'closed') return;
    this.done.commits++;
    for (const r of m.results) {
      const p = this.pending.get(r.seq);
      if (!p) continue;
      this.pending.delete(r.seq);
      this.done.writes++;
      if (r.ok) p.resolve(r.value);
      else p.reject(new Error(r.error));
    }
    if (this.pending.size === 0) this.writer.unref();
  }

  private fail(e: Error): void {
    this.broken ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}

/** The writer thread's script: beside the bundle (dist/), or compiled beside this file (out/). */
function writerScript(): string {
  const path = join(__dirname, 'sqlite-writer.js');
  if (!existsSync(path)) throw new Error(`cannot find the SQLite writer script ${path}`);
  return path;
}
