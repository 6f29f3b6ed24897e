// Session storage that lives only as long as the process: for tests and for
// `mcc serve` without --state. Records are copied in and out, as a real
// store would, so nobody shares objects with it.

import type { BucketRecord, SessionStorage } from './types';

export class MemoryStorage implements SessionStorage {
  private readonly records = new Map<string, BucketRecord>();

  constructor(initial?: Iterable<[string, BucketRecord]>) {
    for (const [id, rec] of initial ?? []) this.records.set(id, structuredClone(rec));
  }

  loadAll(): Promise<Map<string, BucketRecord>> {
    return Promise.resolve(new Map([...this.records].map(([id, rec]) => [id, structuredClone(rec)])));
  }

  put(id: string, record: BucketRecord): Promise<void> {
    this.records.set(id, structuredClone(record));
    return Promise.resolve();
  }

  delete(id: string): Promise<void> {
    this.records.delete(id);
    return Promise.resolve();
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }
}
