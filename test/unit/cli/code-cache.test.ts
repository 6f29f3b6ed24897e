// The CLI's code cache: a module loads as require would load it, V8 takes
// the code the first start stored, and a changed file never meets the code
// of the old one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWithCodeCache } from '../../../src/cli/code-cache';

interface ChildLoad {
  cache: string;
  exports: { answer: number };
}

/**
 * Loads `file` in a new process, as each start of mcc does, and stores its
 * cache (in one process V8 reuses what it compiled and never reads the file).
 */
function loadInChild(file: string, cacheDir: string, save = true): ChildLoad {
  const script = `const { loadWithCodeCache } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'src', 'cli', 'code-cache.js'))});
const l = loadWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)});
${save ? 'l.saveCache();' : ''}
process.stdout.write(JSON.stringify({ cache: l.cache, exports: l.exports }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as ChildLoad;
}

function moduleDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-cc-'));
  writeFileSync(join(dir, 'helper.js'), 'exports.twice = (n) => n * 2;\n');
  return dir;
}

const source = (answer: number): string =>
  `const { twice } = require('./helper.js');\nexports.answer = twice(${answer});\nexports.where = [__filename, __dirname];\nexports.self = module.exports === exports;\n`;

test('loads like require: exports, relative require, __filename and __dirname', () => {
  const dir = moduleDir();
  const file = join(dir, 'main.js');
  writeFileSync(file, source(21));
  const loaded = loadWithCodeCache(file, undefined);
  assert.equal(loaded.cache, 'off');
  assert.deepEqual(loaded.exports, { answer: 42, where: [file, dir], self: true });
  loaded.saveCache();
});

/** A module returning twice `answer`, and an empty private cache folder beside it. */
function moduleAndCache(answer: number): { file: string; cacheDir: string } {
  const dir = moduleDir();
  const cacheDir = join(dir, 'cache');
  mkdirSync(cacheDir, { mode: 0o700 });
  const file = join(dir, 'main.js');
  writeFileSync(file, source(answer));
  return { file, cacheDir };
}

test('the first start stores the compiled code, the next one runs from it; a change is a miss', () => {
  const { file, cacheDir } = moduleAndCache(21);

  const unsaved = loadInChild(file, cacheDir, false);
  assert.equal(unsaved.cache, 'miss');
  assert.deepEqual(readdirSync(cacheDir), [], 'nothing stored before the caller says start-up is done');
  assert.equal(loadInChild(file, cacheDir).cache, 'miss');
  const stored = readdirSync(cacheDir);
  assert.equal(stored.length, 1);
  assert.equal(statSync(join(cacheDir, stored[0] ?? '')).mode & 0o777, 0o600);

  const second = loadInChild(file, cacheDir);
  assert.equal(second.cache, 'hit');
  assert.equal(second.exports.answer, 42);

  // Same length, other content: V8 alone would take the old code.
  writeFileSync(file, source(12));
  const changed = loadInChild(file, cacheDir);
  assert.equal(changed.cache, 'miss');
  assert.equal(changed.exports.answer, 24);
  assert.equal(readdirSync(cacheDir).length, 2, 'the other build keeps its cache (another install, another Node)');
  assert.equal(loadInChild(file, cacheDir).cache, 'hit');
  for (let n = 30; n < 34; n++) {
    writeFileSync(file, source(n));
    loadInChild(file, cacheDir);
  }
  assert.equal(readdirSync(cacheDir).length, 4, 'the four builds used last are kept');
  assert.ok(!readdirSync(cacheDir).includes(stored[0] ?? ''), 'the one used longest ago is gone');
});

test('a damaged cache file is refused by V8 and written again', () => {
  const { file, cacheDir } = moduleAndCache(5);
  loadInChild(file, cacheDir);
  const [name] = readdirSync(cacheDir);
  writeFileSync(join(cacheDir, name ?? ''), Buffer.from('not bytecode at all'));
  const loaded = loadInChild(file, cacheDir);
  assert.equal(loaded.cache, 'rejected');
  assert.equal(loaded.exports.answer, 10);
  assert.equal(loadInChild(file, cacheDir).cache, 'hit');
});
