// `mcc serve` keeps what it compiled and the catalogs it parsed in the
// user's cache folder: the second start reads both, a changed catalog is
// read anew, and MCC_CACHE_DIR=off writes nothing. The catalogs are parsed
// on a worker thread while the CLI compiles (cli/catalog-prefetch.ts), and
// the libraries most starts never use are files of their own (lib-*.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, connect, okText, startServe, tempDir } from './serve-process';

const tool = (name: string): string => `  - name: ${name}\n    description: says ${name}\n    exec: echo ${name}\n`;

/** Starts, waits for the start's log (and the compiled code stored, when `codeDir` is given), stops; answers stderr. */
async function serveOnce(catalog: string, env: NodeJS.ProcessEnv, codeDir?: string): Promise<string> {
  const h = await startServe(['--tools', catalog, '--store', 'memory:'], { MCC_DEBUG: '1', ...env });
  // The URL line comes first on stdout; the log lines may still be on their way.
  const settled = (): boolean => /serving \d+ tools/.test(h.stderr()) && (!codeDir || hasBin(codeDir));
  for (let waited = 0; waited < 10_000 && !settled(); waited += 50) await new Promise((r) => setTimeout(r, 50));
  await h.stop();
  return h.stderr();
}

function hasBin(dir: string): boolean {
  try {
    return readdirSync(dir).some((f) => f.endsWith('.bin'));
  } catch {
    return false;
  }
}

test('the second start runs from the code and catalog caches; a changed catalog is read again', async () => {
  const dir = tempDir();
  const cache = join(dir, 'cache');
  const catalog = join(dir, 'tools.yaml');
  writeFileSync(catalog, `tools:\n${tool('a')}`);

  const first = await serveOnce(catalog, { MCC_CACHE_DIR: cache }, join(cache, 'code'));
  assert.match(first, /code cache: miss/);
  assert.match(first, /serving 1 tools/);
  assert.match(first, /catalog files parsed ahead: 1/);
  assert.equal(statSync(cache).mode & 0o777, 0o700);
  const [entry] = readdirSync(join(cache, 'catalogs'));
  assert.ok(entry, 'the parsed catalog is stored');
  assert.equal(readdirSync(join(cache, 'code')).length, 1, 'the compiled code is stored');

  const past = new Date(Date.now() - 3_600_000);
  utimesSync(join(cache, 'catalogs', entry), past, past);
  const second = await serveOnce(catalog, { MCC_CACHE_DIR: cache });
  assert.match(second, /code cache: hit/);
  assert.match(second, /serving 1 tools/);
  assert.ok(statSync(join(cache, 'catalogs', entry)).mtimeMs > past.getTime() + 1000, 'the stored catalog was read');

  writeFileSync(catalog, `tools:\n${tool('a')}${tool('b')}`);
  const third = await serveOnce(catalog, { MCC_CACHE_DIR: cache });
  assert.match(third, /serving 2 tools/, 'the new text is parsed, not the stored one');
  assert.equal(readdirSync(join(cache, 'catalogs')).length, 2);
});

test('MCC_CACHE_DIR=off: no cache is read or written', async () => {
  const dir = tempDir();
  const catalog = join(dir, 'tools.yaml');
  writeFileSync(catalog, `tools:\n${tool('a')}`);
  const xdg = join(dir, 'xdg');
  const log = await serveOnce(catalog, { MCC_CACHE_DIR: 'off', XDG_CACHE_HOME: xdg });
  assert.match(log, /code cache: off/);
  assert.match(log, /serving 1 tools/);
  assert.throws(() => readdirSync(xdg), /ENOENT/);
});

test('a folder and a pattern are parsed ahead too, and the lazily loaded libraries run from their own files', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'folder'));
  writeFileSync(join(dir, 'folder', 'a.yaml'), `tools:\n${tool('a')}`);
  writeFileSync(join(dir, 'folder', 'b.yml'), `tools:\n${tool('b')}`);
  writeFileSync(join(dir, 'c-greet.yaml'), 'tools:\n  - name: greet\n    exec: echo hi {{ who | quote }}\n    params:\n      - name: who\n        type: str\n');
  const h = await startServe(['--tools', join(dir, 'folder'), '--tools', join(dir, 'c-*.yaml'), '--store', 'memory:'], {
    MCC_DEBUG: '1',
    MCC_CACHE_DIR: join(dir, 'cache'),
  });
  try {
    const client = await connect(h);
    // The command's template is rendered by nunjucks (dist/lib-nunjucks.js); the pattern was expanded by tinyglobby.
    assert.match(await okText(client, 'execute', { key: 'public.greet', params: { who: 'prefetch' } }), /hi prefetch/);
    await client.close();
    assert.match(h.stderr(), /catalog files parsed ahead: 3/);
    assert.match(h.stderr(), /serving 3 tools/);
  } finally {
    await h.stop();
  }
});

test('a catalog path that does not exist is refused as before, and only the main thread says so', () => {
  const dir = tempDir();
  const r = spawnSync(process.execPath, [CLI, 'serve', '--tools', join(dir, 'missing.yaml'), '--store', 'memory:'], {
    env: { ...process.env, MCC_TOKEN: 'x'.repeat(32), MCC_CACHE_DIR: join(dir, 'cache') },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 2);
  assert.equal(r.stderr, `mcc: --tools ${join(dir, 'missing.yaml')}: no such file or folder\n`);
  assert.equal(r.stdout, '');
});
