// Opens the backend a StoreSpec names, and imports a version 1 state file
// into it. Used by `mcc serve`; the editor uses workspace state instead.

import { join } from 'node:path';
import { silentLogger, systemClock, type Clock, type Logger } from '../host';
import { MemoryStorage } from './memory-storage';
import { SqliteStorage } from './sqlite-storage';
import type { StoreSpec } from './store-spec';
import type { SessionStorage } from './types';
import { importV1StateFile } from './v1-import';

export interface OpenStorageOptions {
  /** A version 1 JSON state file to import on first start (not into a memory store). */
  importFrom?: string;
  ttlSeconds: number;
  /** Key prefix in Redis. */
  redisPrefix?: string;
  logger?: Logger;
  clock?: Clock;
}

export async function openSessionStorage(spec: StoreSpec, o: OpenStorageOptions): Promise<SessionStorage> {
  const logger = o.logger ?? silentLogger;
  const storage = await open(spec, o, logger);
  if (o.importFrom && spec.kind !== 'memory') {
    try {
      await importV1StateFile(o.importFrom, storage, { ttlMs: o.ttlSeconds * 1000, now: (o.clock ?? systemClock).now(), logger });
    } catch (e) {
      await storage.close();
      throw e;
    }
  }
  return storage;
}

async function open(spec: StoreSpec, o: OpenStorageOptions, logger: Logger): Promise<SessionStorage> {
  switch (spec.kind) {
    case 'memory':
      return new MemoryStorage();
    case 'sqlite':
      return new SqliteStorage(spec.path, logger);
    case 'redis': {
      // Loaded only here, from its own file beside this one (as the SQLite
      // writer is): the Redis client is a quarter of the CLI bundle, which
      // every start would otherwise read.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { RedisStorage } = require(join(__dirname, 'redis-storage.js')) as typeof import('./redis-storage');
      return RedisStorage.open({ url: spec.url, ...(o.redisPrefix !== undefined ? { prefix: o.redisPrefix } : {}), logger });
    }
  }
}
