// The store contract on a real redis-server started for this file, plus what
// only Redis does: buckets expire through PEXPIRE, instances share buckets,
// and with the append-only file on, a kill -9 of Redis loses nothing acknowledged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createClient } from 'redis';
import { RedisStorage } from '../../../src/core/session/redis-storage';
import { SessionStore, bucketIdOf } from '../../../src/core/session/store';
import { redisUnavailable, startRedis, type RedisServer } from '../../support/redis-server';
import { storeContract } from './store-contract';

let redis: RedisServer | undefined;
let n = 0;
const opened: RedisStorage[] = [];
const open = async (prefix: string) => {
  const s = await RedisStorage.open({ url: redis!.url, prefix });
  opened.push(s);
  return s;
};
const skip = () => redisUnavailable();

storeContract({
  name: 'Redis',
  skip,
  expiresItself: true,
  setup: async () => {
    redis = await startRedis();
  },
  // Each test gets its own key prefix in the one server.
  make: () => open(`contract${++n}:`),
  teardown: async () => {
    for (const s of opened.splice(0)) await s.close();
    await redis?.stop();
  },
});

void describe('Redis storage', { skip: skip() }, () => {
  let server: RedisServer;
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    await server.stop();
  });

  void test('a bucket expires through PEXPIRE, refreshed by each change and by the last-use writer', async () => {
    const storage = await RedisStorage.open({ url: server.url, prefix: 'ttl:' });
    // Three seconds, and every wait measured from what Redis says: a loaded
    // machine that sleeps late must not make the bucket expire before the touch.
    const store = await SessionStore.open({ storage, ttlSeconds: 3, sweepIntervalMs: 0, touchIntervalMs: 0 });
    const raw = createClient({ url: server.url });
    await raw.connect();
    const key = `ttl:bucket:${bucketIdOf('u', 's')}`;
    await store.set('u', 's', 'a', 1);
    const ttl = await raw.pTTL(key);
    assert.ok(ttl > 0 && ttl <= 3000, `PTTL ${ttl}`);
    await new Promise((r) => setTimeout(r, 600));
    const before = await raw.pTTL(key);
    assert.ok(before > 0, `the bucket is still there before the touch (PTTL ${before})`);
    store.touch('u', 's');
    await store.flush();
    const after = await raw.pTTL(key);
    assert.ok(after > before, `the touch pushed the expiry back (PTTL ${before} -> ${after})`);
    await new Promise((r) => setTimeout(r, after + 200));
    assert.equal(await raw.exists(key), 0, 'Redis removed the bucket itself');
    assert.deepEqual(await store.variables('u', 's'), {});
    await raw.close();
    await store.close();
  });

  void test('two instances share buckets: read-through, and a stale write-back is refused', async () => {
    const a = await SessionStore.open({ storage: await RedisStorage.open({ url: server.url, prefix: 'shared:' }), sweepIntervalMs: 0 });
    const b = await SessionStore.open({ storage: await RedisStorage.open({ url: server.url, prefix: 'shared:' }), sweepIntervalMs: 0 });
    const other = await SessionStore.open({ storage: await RedisStorage.open({ url: server.url, prefix: 'elsewhere:' }), sweepIntervalMs: 0 });
    for (let i = 0; i < 20; i++) {
      await (i % 2 ? a : b).set('u', 'k', 'n', i);
      assert.equal((await (i % 2 ? b : a).variables('u', 'k')).n, i);
    }
    assert.deepEqual(await other.variables('u', 'k'), {}, 'another prefix is another store');
    const snapshot = await b.variables('u', 'k');
    await a.set('u', 'k', 'n', 'from a');
    const wb = await b.writeBack('u', 'k', snapshot, { n: 'from b', more: 1 });
    assert.equal(wb.applied, false);
    assert.deepEqual(await a.variables('u', 'k'), { n: 'from a' });
    await Promise.all([a.close(), b.close(), other.close()]);
  });

  void test('an unreachable Redis fails at open with a clear error', async () => {
    await assert.rejects(RedisStorage.open({ url: 'redis://127.0.0.1:1/0' }), /Cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/0/);
  });

  void test('with the append-only file on, kill -9 of Redis loses no acknowledged write', async () => {
    const own = await startRedis();
    const store = await SessionStore.open({ storage: await RedisStorage.open({ url: own.url }), sweepIntervalMs: 0 });
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.set('u', 'durable', `v${i}`, i)));
    own.proc.kill('SIGKILL');
    await new Promise((r) => own.proc.once('exit', r));
    await store.close().catch(() => undefined);
    // Same folder and port: Redis replays its append-only file.
    const again = spawn('redis-server', ['--port', String(own.port), '--bind', '127.0.0.1', '--dir', own.dir, '--appendonly', 'yes', '--save', ''], { stdio: 'ignore' });
    try {
      // Until Redis listens and has loaded its file (LOADING): then read.
      let vars: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && !vars; i++) {
        const storage = await RedisStorage.open({ url: own.url }).catch(() => undefined);
        const reopened = storage && (await SessionStore.open({ storage, sweepIntervalMs: 0 }));
        vars = await reopened?.variables('u', 'durable').catch(() => undefined);
        await reopened?.close().catch(() => undefined);
        if (!vars) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(vars, 'redis-server did not come back');
      assert.equal(Object.keys(vars).length, 300);
    } finally {
      again.kill('SIGTERM');
      await new Promise((r) => again.once('exit', r));
      await own.stop();
    }
  });
});
