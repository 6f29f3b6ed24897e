// Version 1 of `mcc serve` kept every bucket in one JSON state file. On the
// first start with a store, its live buckets move into the store (a bucket
// the store already has is left as the store has it), and the file is
// renamed aside as a backup, so the next start does not import it again and
// nothing a user had is lost.

import { open, readFile, rename, unlink } from 'node:fs/promises';
import { silentLogger, type Logger } from '../host';
import { bucketIdOf } from './bucket-id';
import { isExpired } from './bucket-change';
import { bucketFromRecord } from './bucket-record';
import type { SessionStorage } from './types';

const FORMAT_VERSION = 1;

export interface ImportResult {
  imported: number;
  /** Buckets the store already had, or that had expired. */
  skipped: number;
  /** Where the file was moved. */
  backup: string;
}

export interface ImportOptions {
  ttlMs: number;
  now: number;
  logger?: Logger;
}

/** Imports the file at `path` into `storage`; undefined when there is no such file. */
export async function importV1StateFile(path: string, storage: SessionStorage, o: ImportOptions): Promise<ImportResult | undefined> {
  const logger = o.logger ?? silentLogger;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Cannot read the version 1 session state file ${path}: ${(e as Error).message}`, { cause: e });
  }
  const parsed = parseStateFile(text);
  if (typeof parsed === 'string') {
    const aside = await moveAside(path, 'corrupt');
    logger.warn(`Session state file ${path} is unreadable (${parsed}); moved it to ${aside}; nothing was imported from it.`);
    return { imported: 0, skipped: 0, backup: aside };
  }
  const results = await Promise.all(
    Object.entries(parsed).map(([storedId, raw]) => {
      const b = bucketFromRecord(raw, storedId, logger);
      if (!b || isExpired(b, o.now, o.ttlMs)) return Promise.resolve(false);
      return storage.importIfAbsent(bucketIdOf(b.user, b.sessionKey), b, o.ttlMs, o.now);
    }),
  );
  const imported = results.filter(Boolean).length;
  let backup: string;
  try {
    backup = await moveAside(path, 'imported');
  } catch (e) {
    // Another process starting at the same time imported it first (import is idempotent).
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return { imported, skipped: results.length - imported, backup: '(moved by another process)' };
  }
  logger.info(
    `Imported ${imported} session bucket(s) from the version 1 state file ${path} into ${storage.description}` +
      `${results.length > imported ? ` (${results.length - imported} skipped: expired or already in the store)` : ''}; ` +
      `the file is kept as ${backup}.`,
  );
  return { imported, skipped: results.length - imported, backup };
}

/** The file's buckets, or why it is not a version 1 state file. */
function parseStateFile(text: string): Record<string, unknown> | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return `not valid JSON: ${(e as Error).message}`;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'not a JSON object';
  const file = data as { version?: unknown; buckets?: unknown };
  if (file.version !== FORMAT_VERSION) return `unknown format version ${JSON.stringify(file.version)}`;
  const b = file.buckets;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return '"buckets" is not an object';
  return b as Record<string, unknown>;
}

/** Renames `path` to `<path>.<what>-<timestamp>`, never over an earlier one. */
async function moveAside(path: string, what: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  for (let n = 0; ; n++) {
    const target = `${path}.${what}-${stamp}${n === 0 ? '' : `-${n}`}`;
    try {
      // Fails if it exists, so an earlier backup is never overwritten.
      const h = await open(target, 'wx', 0o600);
      await h.close();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    try {
      await rename(path, target);
      return target;
    } catch (e) {
      await unlink(target).catch(() => undefined);
      throw e;
    }
  }
}
