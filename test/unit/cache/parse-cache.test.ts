// The parse cache on disk: entries in a private folder, written whole, the
// least recently used dropped past the limit, and no folder used that
// another user could write to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirParseCache } from '../../../src/core/cache/parse-cache';
import { cacheDirFromEnv, defaultCacheDir, privateDir } from '../../../src/core/cache/cache-dir';

const key = (n: number): string => n.toString(16).padStart(64, '0');

test('an entry written is read back, from a folder only this user can open', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcc-pc-')), 'nested', 'catalogs');
  const cache = DirParseCache.open(dir);
  assert.ok(cache);
  assert.equal(cache.get(key(1)), undefined);
  cache.set(key(1), '{"data":1}');
  assert.equal(cache.get(key(1)), '{"data":1}');
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, `${key(1)}.json`)).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), [`${key(1)}.json`], 'no temporary file left');
});

test('keys that are not hashes are neither read nor written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-pc-'));
  const cache = DirParseCache.open(dir);
  assert.ok(cache);
  cache.set('../escape', 'x');
  cache.set('ABC', 'x');
  assert.deepEqual(readdirSync(dir), []);
  writeFileSync(join(dir, 'zz.json'), 'planted');
  assert.equal(cache.get('zz'), undefined);
});

test('past the limit, the least recently used entries go', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-pc-'));
  const cache = DirParseCache.open(dir, { maxEntries: 3, pruneEvery: 1 });
  assert.ok(cache);
  for (let i = 1; i <= 3; i++) {
    cache.set(key(i), String(i));
    const at = new Date(Date.now() - (10 - i) * 60_000);
    utimesSync(join(dir, `${key(i)}.json`), at, at);
  }
  assert.equal(cache.get(key(1)), '1', 'reading 1 makes it the most recent');
  cache.set(key(4), '4');
  assert.deepEqual(readdirSync(dir).sort(), [key(1), key(3), key(4)].map((k) => `${k}.json`).sort());
});

test('a folder others can write to, or under one, or a file in its place, is not used', () => {
  const open = mkdtempSync(join(tmpdir(), 'mcc-pc-'));
  chmodSync(open, 0o777);
  assert.equal(privateDir(open), undefined);
  assert.equal(DirParseCache.open(open), undefined);
  // Private itself, but in a folder where anyone could rename it and put another in its place.
  assert.equal(privateDir(join(open, 'inner')), undefined);
  const sticky = mkdtempSync(join(tmpdir(), 'mcc-pc-'));
  chmodSync(sticky, 0o1777);
  assert.ok(privateDir(join(sticky, 'inner')), 'a sticky folder (as /tmp) lets nobody rename what is not theirs');
  const file = join(mkdtempSync(join(tmpdir(), 'mcc-pc-')), 'f');
  writeFileSync(file, '');
  assert.equal(privateDir(file), undefined);
});

test('the cache folder: $MCC_CACHE_DIR, off, else $XDG_CACHE_HOME/mcc, else ~/.cache/mcc', () => {
  assert.equal(cacheDirFromEnv({ MCC_CACHE_DIR: '/x/y' }), '/x/y');
  assert.equal(cacheDirFromEnv({ MCC_CACHE_DIR: 'off', XDG_CACHE_HOME: '/c' }), undefined);
  assert.equal(cacheDirFromEnv({ XDG_CACHE_HOME: '/c' }), '/c/mcc');
  assert.match(defaultCacheDir({ XDG_CACHE_HOME: 'relative' }) ?? '', /\.cache[/\\]mcc$/);
  assert.equal(cacheDirFromEnv({}, '/editor/storage'), '/editor/storage', "the editor's own folder");
  assert.equal(cacheDirFromEnv({ MCC_CACHE_DIR: 'off' }, '/editor/storage'), undefined, 'off holds for the editor too');
});

test('an entry anyone could have rewritten is not read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-pc-'));
  const cache = DirParseCache.open(dir);
  assert.ok(cache);
  cache.set(key(7), '{"data":7}');
  chmodSync(join(dir, `${key(7)}.json`), 0o666);
  assert.equal(cache.get(key(7)), undefined);
});
