// The store contract on a real SQLite file, plus what only a file shared by
// processes can show: read-through across connections and processes.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../../src/core/session/sqlite-storage';
import { SessionStore } from '../../../src/core/session/store';
import { storeContract } from './store-contract';

const dir = mkdtempSync(join(tmpdir(), 'mcc-sqlite-'));
let n = 0;
const opened: SqliteStorage[] = [];
const sqlite = (path = join(dir, `s${++n}.db`)) => {
  const s = new SqliteStorage(path);
  opened.push(s);
  return s;
};

storeContract({
  name: 'SQLite',
  make: () => Promise.resolve(sqlite()),
  teardown: async () => {
    for (const s of opened.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  },
});

void describe('SQLite storage on a shared file', () => {
  const own = mkdtempSync(join(tmpdir(), 'mcc-sqlite-shared-'));
  after(() => rmSync(own, { recursive: true, force: true }));

  void test('the file is the owner\'s alone, and a second connection reads every acknowledged write', async () => {
    const path = join(own, 'nested', 'sessions.db');
    const a = await SessionStore.open({ storage: new SqliteStorage(path), sweepIntervalMs: 0 });
    const b = await SessionStore.open({ storage: new SqliteStorage(path), sweepIntervalMs: 0 });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    for (let i = 0; i < 20; i++) {
      await a.set('u', 'k', 'n', i);
      assert.equal((await b.variables('u', 'k')).n, i);
    }
    // Check-and-set across connections: b's write-back over a's newer value is refused.
    const snapshot = await b.variables('u', 'k');
    await a.set('u', 'k', 'n', 'from a');
    assert.equal((await b.writeBack('u', 'k', snapshot, { n: 'from b' })).applied, false);
    assert.equal((await a.variables('u', 'k')).n, 'from a');
    await Promise.all([a.close(), b.close()]);
  });

  void test('two processes each setting 500 variables in parallel: all 1,000 are there, for both', async () => {
    const path = join(own, 'two-processes.db');
    const script = `
      const { SessionStore } = require(${JSON.stringify(join(__dirname, '../../../src/core/session/store.js'))});
      const { SqliteStorage } = require(${JSON.stringify(join(__dirname, '../../../src/core/session/sqlite-storage.js'))});
      (async () => {
        const [path, who] = process.argv.slice(1);
        const store = await SessionStore.open({ storage: new SqliteStorage(path), sweepIntervalMs: 0 });
        await Promise.all(Array.from({ length: 500 }, (_, i) => store.set('u', 'shared', who + '_' + i, { who, i })));
        // Wait for the other process, then read everything back.
        const deadline = Date.now() + 60000;
        let vars;
        do { vars = await store.variables('u', 'shared'); } while (Object.keys(vars).length < 1000 && Date.now() < deadline && await new Promise((r) => setTimeout(r, 20, true)));
        process.stdout.write(JSON.stringify(Object.keys(vars).length));
        await store.close();
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const run = (who: string) =>
      new Promise<number>((resolve, reject) => {
        const p = spawn(process.execPath, ['-e', script, path, who], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr.on('data', (d: Buffer) => (err += d.toString()));
        p.once('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`child ${who} exited ${code}: ${err}`))));
      });
    const [a, b] = await Promise.all([run('a'), run('b')]);
    assert.equal(a, 1000);
    assert.equal(b, 1000);
    const check = await SessionStore.open({ storage: new SqliteStorage(path), sweepIntervalMs: 0 });
    const vars = await check.variables('u', 'shared');
    for (const who of ['a', 'b']) for (let i = 0; i < 500; i++) assert.deepEqual(vars[`${who}_${i}`], { who, i });
    await check.close();
  });

  void test('a database from a newer schema is refused with a clear error', async () => {
    const path = join(own, 'future.db');
    const s = new SqliteStorage(path);
    await s.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    assert.throws(() => new SqliteStorage(path), /Cannot open the session database .*future\.db: it was written by a newer MCC \(schema 99/);
  });
});
