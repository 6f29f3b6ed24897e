import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BucketRecord } from '../../../src/core/session/types';
import { JsonFileStorage } from '../../../src/core/session/json-file-storage';
import { SessionStore, bucketIdOf } from '../../../src/core/session/store';
import { RecordingLogger } from './helpers';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcc-session-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function record(vars: Record<string, unknown>, user = 'u', sessionKey = 's'): BucketRecord {
  const now = Date.now();
  return { user, sessionKey, vars, createdAt: now, lastUsed: now };
}

void describe('JsonFileStorage', () => {
  void test('a missing file is an empty store; the parent folder is created on first write', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'deep', 'er', 'state.json');
    const s = new JsonFileStorage(path);
    assert.equal((await s.loadAll()).size, 0);
    await s.put('a', record({ x: 1 }));
    const onDisk = JSON.parse(await readFile(path, 'utf8')) as { version: number; buckets: Record<string, BucketRecord> };
    assert.equal(onDisk.version, 1);
    assert.deepEqual(onDisk.buckets.a?.vars, { x: 1 });
    assert.equal((await stat(path)).mode & 0o777, 0o600, 'owner-only: variables may hold secrets');
  });

  void test('put/delete resolve once on disk; a new instance reads them back', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    const s = new JsonFileStorage(path);
    await s.put('a', record({ x: 1 }));
    await s.put('b', record({ y: [1, 'two', null] }));
    await s.delete('a');
    const again = await new JsonFileStorage(path).loadAll();
    assert.deepEqual([...again.keys()], ['b']);
    assert.deepEqual(again.get('b')?.vars, { y: [1, 'two', null] });
  });

  void test('concurrent puts are coalesced into few writes and all land', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    const s = new JsonFileStorage(path);
    await s.loadAll();
    await Promise.all(Array.from({ length: 100 }, (_, i) => s.put(`b${i}`, record({ i }))));
    const again = await new JsonFileStorage(path).loadAll();
    assert.equal(again.size, 100);
    for (let i = 0; i < 100; i++) assert.deepEqual(again.get(`b${i}`)?.vars, { i });
    // No temp files are left behind.
    assert.deepEqual(await readdir(dir), ['state.json']);
  });

  void test('a reader never sees a partial file while writes are under way', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    const s = new JsonFileStorage(path);
    await s.put('seed', record({ big: 'x'.repeat(200_000) }));
    let writing = true;
    let reads = 0;
    const reader = (async () => {
      while (writing) {
        const text = await readFile(path, 'utf8');
        JSON.parse(text); // throws on a torn or truncated file
        reads++;
      }
    })();
    for (let i = 0; i < 40; i++) await s.put(`b${i}`, record({ big: String(i).repeat(100_000) }));
    writing = false;
    await reader;
    assert.ok(reads > 0);
  });

  void test('a corrupt file is moved aside with a warning and the store starts empty', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    const torn = '{"version":1,"buckets":{"a":{"user":"u","sess';
    await writeFile(path, torn);
    const logger = new RecordingLogger();
    const s = new JsonFileStorage(path, logger);
    assert.equal((await s.loadAll()).size, 0);
    const files = await readdir(dir);
    const aside = files.find((f) => f.startsWith('state.json.corrupt-'));
    assert.ok(aside, files.join(','));
    assert.equal(await readFile(join(dir, aside), 'utf8'), torn, 'the corrupt content is kept, not lost');
    assert.ok(logger.warnings().some((w) => w.includes('not valid JSON') && w.includes(aside)));
    await s.put('b', record({ ok: true }));
    assert.deepEqual((await new JsonFileStorage(path).loadAll()).get('b')?.vars, { ok: true });
  });

  void test('a file of the wrong shape is moved aside too, and earlier corrupt copies are kept', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    for (const content of ['[1,2]', '{"version":99,"buckets":{}}', '{"version":1,"buckets":[]}']) {
      await writeFile(path, content);
      const logger = new RecordingLogger();
      assert.equal((await new JsonFileStorage(path, logger).loadAll()).size, 0);
      assert.equal(logger.warnings().length, 1, content);
    }
    const aside = (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
    assert.equal(aside.length, 3);
  });

  void test('a stale temp file from a crashed write is ignored', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    const s = new JsonFileStorage(path);
    await s.put('a', record({ x: 1 }));
    await writeFile(join(dir, '.state.json.tmp-99999-1'), '{"version":1,"buckets":{"evil":');
    await writeFile(join(dir, 'state.json.tmp'), 'garbage');
    const again = await new JsonFileStorage(path).loadAll();
    assert.deepEqual([...again.keys()], ['a']);
  });

  void test('a write error rejects the put with a logged error; a later write succeeds without the refused one', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'sub', 'state.json');
    const logger = new RecordingLogger();
    const s = new JsonFileStorage(path, logger);
    assert.equal((await s.loadAll()).size, 0);
    // The parent "folder" is now a file, so the write cannot create it.
    await writeFile(join(dir, 'sub'), '');
    await assert.rejects(s.put('a', record({ x: 1 })), /EEXIST|ENOTDIR/);
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.message.includes(path)));
    await rm(join(dir, 'sub'));
    await s.put('b', record({ y: 2 }));
    const again = await new JsonFileStorage(path).loadAll();
    assert.deepEqual([...again.keys()].sort(), ['b'], 'the refused put of a is not written later');
  });

  void test('an unreadable state file (not just missing) is a clear error, not an empty store', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'blocker'), '');
    const path = join(dir, 'blocker', 'state.json');
    await assert.rejects(new JsonFileStorage(path).loadAll(), /Cannot read the session state file .*blocker/);
  });
});

void describe('SessionStore over JsonFileStorage', () => {
  void test('200 concurrent set() calls in one bucket, then reopen from disk: all there', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    const store = await SessionStore.open({ storage: new JsonFileStorage(path), sweepIntervalMs: 0 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.set('alice', 'k:1', `v${i}`, { i, s: String(i) })));
    store.dispose();
    const reopened = await SessionStore.open({ storage: new JsonFileStorage(path), sweepIntervalMs: 0 });
    const vars = reopened.variables('alice', 'k:1');
    assert.equal(Object.keys(vars).length, 200);
    for (let i = 0; i < 200; i++) assert.deepEqual(vars[`v${i}`], { i, s: String(i) });
  });

  void test('a process killed mid-stream (SIGKILL) keeps every acknowledged write and no torn file', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'state.json');
    // The child acknowledges each set on stdout after its promise resolved.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `
        const { SessionStore } = require(${JSON.stringify(join(__dirname, '../../../src/core/session/store.js'))});
        const { JsonFileStorage } = require(${JSON.stringify(join(__dirname, '../../../src/core/session/json-file-storage.js'))});
        (async () => {
          const store = await SessionStore.open({ storage: new JsonFileStorage(process.argv[1]), sweepIntervalMs: 0 });
          for (let i = 0; ; i++) {
            await store.set('u', 's' + (i % 3), 'v' + i, 'x'.repeat(i % 500));
            process.stdout.write(i + '\\n');
          }
        })();
        `,
        path,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const acked: number[] = [];
    let buffer = '';
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        acked.push(...lines.map(Number));
        if (acked.length >= 150 && !child.killed) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => resolve());
    });
    await new Promise((r) => child.once('close', r));
    assert.ok(acked.length >= 150, `child acknowledged only ${acked.length} writes`);
    const logger = new RecordingLogger();
    const store = await SessionStore.open({ storage: new JsonFileStorage(path, logger), sweepIntervalMs: 0 });
    assert.deepEqual(logger.warnings(), [], 'the file must never be torn');
    for (const i of acked) {
      assert.equal(store.variables('u', `s${i % 3}`)[`v${i}`], 'x'.repeat(i % 500), `acknowledged write v${i} lost`);
    }
    assert.ok(store.bucket(bucketIdOf('u', 's0')));
  });
});

describe('a refused write', () => {
  test('never reaches disk with a later write that succeeds, and the store rolls back too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcc-refused-'));
    const folder = join(dir, 'state');
    const path = join(folder, 's.json');
    const storage = new JsonFileStorage(path);
    const store = await SessionStore.open({ storage, sweepIntervalMs: 0 });
    await store.set('alice', 'X', 'api_token', 'old');
    // Writes fail while the folder is replaced by a file.
    await rename(folder, `${folder}.away`);
    await writeFile(folder, '');
    await assert.rejects(store.set('alice', 'X', 'api_token', 'REFUSED'), /Nothing was stored/);
    await unlink(folder);
    await rename(`${folder}.away`, folder);
    await store.set('bob', 'Y', 'n', 1);
    const onDisk = JSON.parse(await readFile(path, 'utf8')) as { buckets: Record<string, BucketRecord> };
    assert.deepEqual(onDisk.buckets[bucketIdOf('alice', 'X')].vars, { api_token: 'old' });
    assert.deepEqual(onDisk.buckets[bucketIdOf('bob', 'Y')].vars, { n: 1 });
    const reopened = await SessionStore.open({ storage: new JsonFileStorage(path), sweepIntervalMs: 0 });
    assert.deepEqual(reopened.variables('alice', 'X'), { api_token: 'old' });
    await rm(dir, { recursive: true, force: true });
  });
});
