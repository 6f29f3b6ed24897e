// The SQLite store's writer thread: its own connection, so a commit's fsync
// (or a wait for another process's write lock) never stalls the server.
// Operations that arrive while a commit runs are queued by the message port
// and go into the next transaction together (group commit).

import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './sqlite-schema';
import { SqliteWrites, type WriteOp, type WriteResult } from './sqlite-writes';

export interface WriterRequest {
  seq: number;
  op: WriteOp;
}
/** `commit`: which of the writer's transactions the operation was in (for the commit count). */
export type WriterReply = { seq: number; commit: number } & WriteResult;

const port = parentPort;
if (!port) throw new Error('sqlite-writer runs as a worker thread');
const db = openDatabase((workerData as { path: string }).path);
const writes = new SqliteWrites(db);
let queue: WriterRequest[] = [];
let scheduled = false;
let commits = 0;

port.on('message', (m: WriterRequest | 'close') => {
  if (m === 'close') {
    db.close();
    port.postMessage('closed');
    return;
  }
  queue.push(m);
  if (scheduled) return;
  scheduled = true;
  // setImmediate: messages already delivered join this batch.
  setImmediate(() => {
    scheduled = false;
    const batch = queue;
    queue = [];
    const results = writes.commit(batch.map((r) => r.op));
    const commit = ++commits;
    batch.forEach((req, i) => {
      const reply: WriterReply = { seq: req.seq, commit, ...results[i] };
      port.postMessage(reply);
    });
  });
});
