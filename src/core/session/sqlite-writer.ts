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
/** The results of one transaction, in the order of its requests. */
export interface WriterReply {
  results: Array<{ seq: number } & WriteResult>;
}

const port = parentPort;
if (!port) throw new Error('sqlite-writer runs as a worker thread');
const db = openDatabase((workerData as { path: string }).path);
const writes = new SqliteWrites(db);
let queue: WriterRequest[] = [];
let scheduled = false;

port.on('message', (m: WriterRequest[] | 'close') => {
  if (m === 'close') {
    db.close();
    port.postMessage('closed');
    return;
  }
  queue.push(...m);
  if (scheduled) return;
  scheduled = true;
  // setImmediate: messages already delivered join this batch.
  setImmediate(() => {
    scheduled = false;
    const batch = queue;
    queue = [];
    const results = writes.commit(batch.map((r) => r.op));
    const reply: WriterReply = { results: batch.map((req, i) => ({ seq: req.seq, ...(results[i]) })) };
    port.postMessage(reply);
  });
});
