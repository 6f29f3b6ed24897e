// Session storage in one JSON file. Every write replaces the file atomically
// (temp file in the same folder, fsync, rename), so a crash leaves either the
// old or the new file, never a torn one. Writes are serialised and
// coalesced: puts that arrive while a write runs go into the next one.

import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { silentLogger, type Logger } from '../host';
import type { BucketRecord, SessionStorage } from './types';

const FORMAT_VERSION = 1;

interface StateFile {
  version: number;
  buckets: Record<string, BucketRecord>;
}

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers may not await every batch; an unobserved failure is still reported to them.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export class JsonFileStorage implements SessionStorage {
  private records: Map<string, BucketRecord> | undefined;
  private loading: Promise<Map<string, BucketRecord>> | undefined;
  /** Changes not yet in a write that has started. */
  private pending: Batch | undefined;
  private writer: Promise<void> | undefined;
  private tempCounter = 0;

  constructor(
    readonly path: string,
    private readonly logger: Logger = silentLogger,
  ) {}

  async loadAll(): Promise<Map<string, BucketRecord>> {
    const records = await this.ensureLoaded();
    return new Map([...records].map(([id, rec]) => [id, structuredClone(rec)]));
  }

  async put(id: string, record: BucketRecord): Promise<void> {
    const records = await this.ensureLoaded();
    const before = records.get(id);
    const next = structuredClone(record);
    records.set(id, next);
    try {
      await this.scheduleWrite();
    } catch (e) {
      // A refused write must not reach disk with the next one that succeeds.
      if (records.get(id) === next) restore(records, id, before);
      throw e;
    }
  }

  async delete(id: string): Promise<void> {
    const records = await this.ensureLoaded();
    const before = records.get(id);
    records.delete(id);
    try {
      await this.scheduleWrite();
    } catch (e) {
      if (!records.has(id)) restore(records, id, before);
      throw e;
    }
  }

  async flush(): Promise<void> {
    while (this.writer) {
      await this.writer;
    }
  }

  private ensureLoaded(): Promise<Map<string, BucketRecord>> {
    if (this.records) return Promise.resolve(this.records);
    this.loading ??= this.readFromDisk().then(
      (records) => (this.records = records),
      (e: unknown) => {
        // A later call may retry (e.g. after a permission fix).
        this.loading = undefined;
        throw e;
      },
    );
    return this.loading;
  }

  private async readFromDisk(): Promise<Map<string, BucketRecord>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw new Error(`Cannot read the session state file ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    const problem = parseStateFile(text);
    if (typeof problem !== 'string') return new Map(Object.entries(problem.buckets));
    const aside = await this.moveAside();
    this.logger.warn(
      `Session state file ${this.path} is unreadable (${problem}); moved it to ${aside} and starting with an empty session store.`,
    );
    return new Map();
  }

  private async moveAside(): Promise<string> {
    const stamp = new Date().toISOString().replace(/[-:.]/g, '');
    for (let n = 0; ; n++) {
      const target = `${this.path}.corrupt-${stamp}${n === 0 ? '' : `-${n}`}`;
      try {
        // Fails if it exists, so an earlier corrupt copy is never overwritten.
        const h = await open(target, 'wx');
        await h.close();
        await rename(this.path, target);
        return target;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
  }

  private scheduleWrite(): Promise<void> {
    this.pending ??= newBatch();
    const batch = this.pending;
    this.writer ??= this.writeLoop();
    return batch.promise;
  }

  private async writeLoop(): Promise<void> {
    // Let the puts of this tick join the first batch.
    await Promise.resolve();
    while (this.pending) {
      const batch = this.pending;
      this.pending = undefined;
      try {
        await this.writeFile(this.serialise());
        batch.resolve();
      } catch (e) {
        this.logger.error(`Could not write the session state file ${this.path}: ${(e as Error).message}`);
        batch.reject(e);
      }
    }
    this.writer = undefined;
  }

  private serialise(): string {
    const file: StateFile = { version: FORMAT_VERSION, buckets: Object.fromEntries(this.records ?? []) };
    return JSON.stringify(file, null, 1) + '\n';
  }

  private async writeFile(text: string): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true });
    const temp = join(dir, `.${basename(this.path)}.tmp-${process.pid}-${++this.tempCounter}`);
    try {
      // Session variables may hold secrets (tokens a tool stashed): owner-only.
      const h = await open(temp, 'w', 0o600);
      try {
        await h.writeFile(text, 'utf8');
        await h.sync();
      } finally {
        await h.close();
      }
      await rename(temp, this.path);
    } catch (e) {
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    await syncDirectory(dir);
  }
}

/** The parsed file, or why it is not a state file. */
function parseStateFile(text: string): StateFile | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return `not valid JSON: ${(e as Error).message}`;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'not a JSON object';
  const file = data as Partial<StateFile>;
  if (file.version !== FORMAT_VERSION) return `unknown format version ${JSON.stringify(file.version)}`;
  const b = file.buckets;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return '"buckets" is not an object';
  return file as StateFile;
}

// Makes the rename itself durable; not possible everywhere (e.g. Windows), so best effort.
async function syncDirectory(dir: string): Promise<void> {
  try {
    const h = await open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    // The file itself is already synced.
  }
}

function restore(records: Map<string, BucketRecord>, id: string, before: BucketRecord | undefined): void {
  if (before) records.set(id, before);
  else records.delete(id);
}
