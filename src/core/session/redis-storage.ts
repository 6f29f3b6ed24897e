// Session storage in Redis (or Valkey), for several server instances over
// the same sessions. One hash per bucket under `<prefix>bucket:<id>`; every
// change and refresh is one Lua script (redis-scripts.ts), so it is atomic
// against every other instance, and buckets expire through PEXPIRE.

import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { silentLogger, type Logger } from '../host';
import { CHANGE_SCRIPT, IMPORT_SCRIPT, TOUCH_SCRIPT } from './redis-scripts';
import type { BucketChange, ChangeOutcome, SessionStorage, StoredBucket, Touch } from './types';

export const DEFAULT_REDIS_PREFIX = 'mcc:';
const CONNECT_TIMEOUT_MS = 5000;

class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

const CHANGE = new Script(CHANGE_SCRIPT);
const TOUCH = new Script(TOUCH_SCRIPT);
const IMPORT = new Script(IMPORT_SCRIPT);

export interface RedisStorageOptions {
  url: string;
  prefix?: string;
  logger?: Logger;
}

export class RedisStorage implements SessionStorage {
  readonly description: string;
  private readonly prefix: string;

  private constructor(
    private readonly client: RedisClientType,
    url: string,
    prefix: string,
  ) {
    this.prefix = prefix;
    this.description = `Redis ${redactUrl(url)} (prefix ${JSON.stringify(prefix)})`;
  }

  /** Connects, failing at once with a clear error when Redis cannot be reached. */
  static async open(opts: RedisStorageOptions): Promise<RedisStorage> {
    const logger = opts.logger ?? silentLogger;
    let connected = false;
    let lastError = '';
    const client: RedisClientType = createClient({
      url: opts.url,
      // A call while Redis is away fails now with a clear error, instead of hanging.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: CONNECT_TIMEOUT_MS,
        // Retry after a lost connection; give up at once if the first connect fails.
        reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(100 * 2 ** retries, 3000) : cause),
      },
    });
    client.on('error', (e: Error) => {
      // Logged once per distinct error: a reconnect loop must not flood the log.
      if (connected && e.message !== lastError) logger.warn(`Redis ${redactUrl(opts.url)}: ${e.message}`);
      lastError = e.message;
    });
    client.on('ready', () => {
      if (connected && lastError) logger.info(`Redis ${redactUrl(opts.url)}: connected again`);
      lastError = '';
    });
    try {
      await client.connect();
    } catch (e) {
      throw new Error(`Cannot reach Redis at ${redactUrl(opts.url)}: ${(e as Error).message || String(e)}`, { cause: e });
    }
    connected = true;
    return new RedisStorage(client, opts.url, opts.prefix ?? DEFAULT_REDIS_PREFIX);
  }

  async get(id: string): Promise<StoredBucket | undefined> {
    return fromHash(await this.client.hGetAll(this.key(id)));
  }

  async list(): Promise<Array<[string, StoredBucket]>> {
    const out: Array<[string, StoredBucket]> = [];
    const start = this.key('');
    for await (const keys of this.client.scanIterator({ MATCH: `${globEscape(start)}*`, COUNT: 1000 })) {
      const hashes = await Promise.all(keys.map((k) => this.client.hGetAll(k)));
      keys.forEach((k, i) => {
        const b = fromHash(hashes[i] ?? {});
        if (b) out.push([k.slice(start.length), b]);
      });
    }
    return out;
  }

  async change(id: string, c: BucketChange): Promise<ChangeOutcome> {
    const args = [
      String(c.now),
      String(Math.ceil(c.ttlMs)),
      c.create ? '1' : '0',
      String(c.maxBucketBytes),
      c.user,
      c.sessionKey,
      c.clientName ?? '',
      c.clientName !== undefined ? '1' : '0',
      String(c.set.size),
      String(c.remove.length),
      String(c.expect.size),
      ...[...c.set].flat(),
      ...c.remove,
      ...[...c.expect].flatMap(([name, json]) => [name, json === null ? '0' : '1', json ?? '']),
    ];
    const reply = (await this.run(CHANGE, this.key(id), args)) as string[];
    const [kind, ...rest] = reply;
    if (kind === 'conflict') return { ok: false, conflicts: rest };
    if (kind === 'too-large') return { ok: false, tooLarge: Number(rest[0]) };
    return { ok: true, written: rest[0] === '1', removed: rest.slice(1) };
  }

  async touch(touches: readonly Touch[]): Promise<void> {
    // Sent together: node-redis pipelines commands issued in the same tick.
    await Promise.all(
      touches.map((t) =>
        this.run(TOUCH, this.key(t.id), [
          String(t.lastUsed),
          String(Math.ceil(t.ttlMs)),
          t.user,
          t.sessionKey,
          t.clientName ?? '',
          t.clientName !== undefined ? '1' : '0',
        ]),
      ),
    );
  }

  async remove(id: string): Promise<boolean> {
    return (await this.client.del(this.key(id))) > 0;
  }

  sweep(): Promise<string[]> {
    // Redis removes expired buckets itself (PEXPIRE).
    return Promise.resolve([]);
  }

  async importIfAbsent(id: string, b: StoredBucket, ttlMs: number, now: number): Promise<boolean> {
    const remaining = Math.ceil(b.lastUsed + ttlMs - now);
    if (remaining <= 0) return false;
    const fields = [
      ['m:user', b.user],
      ['m:sessionKey', b.sessionKey],
      ['m:createdAt', String(b.createdAt)],
      ['m:lastUsed', String(b.lastUsed)],
      ...(b.clientName !== undefined ? [['m:clientName', b.clientName]] : []),
      ...[...b.vars].map(([name, json]) => [`v:${name}`, json]),
    ].flat();
    return (await this.run(IMPORT, this.key(id), [String(remaining), String(now), String(Math.ceil(ttlMs)), ...fields])) === 1;
  }

  async close(): Promise<void> {
    // Waits for the replies of commands already sent.
    if (this.client.isOpen) await this.client.close();
  }

  private key(id: string): string {
    return `${this.prefix}bucket:${id}`;
  }

  /** EVALSHA, loading the script on the first NOSCRIPT (a new or restarted Redis). */
  private async run(script: Script, key: string, args: string[]): Promise<unknown> {
    try {
      return await this.client.evalSha(script.sha, { keys: [key], arguments: args });
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return this.client.eval(script.source, { keys: [key], arguments: args });
    }
  }
}

function fromHash(h: Record<string, string>): StoredBucket | undefined {
  const user = h['m:user'];
  const sessionKey = h['m:sessionKey'];
  const createdAt = Number(h['m:createdAt']);
  const lastUsed = Number(h['m:lastUsed']);
  if (!user || !sessionKey || !Number.isFinite(createdAt) || !Number.isFinite(lastUsed)) return undefined;
  const vars = new Map<string, string>();
  for (const [field, value] of Object.entries(h)) if (field.startsWith('v:')) vars.set(field.slice(2), value);
  const clientName = h['m:clientName'];
  return { user, sessionKey, createdAt, lastUsed, ...(clientName !== undefined ? { clientName } : {}), vars };
}

/** The URL without its password, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
