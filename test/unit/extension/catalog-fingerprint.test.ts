// One save of tools.yaml reloads the catalog once: watcher events whose
// files are byte for byte what the last load read are skipped. The digest
// must change exactly when a load would read something else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogFingerprint } from '../../../src/extension/catalog-fingerprint';

void test('the catalog digest follows what a load reads, and nothing else', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-fp-'));
  try {
    const file = join(dir, 'tools.yaml');
    const folder = join(dir, 'catalogs');
    mkdirSync(join(folder, 'nested'), { recursive: true });
    writeFileSync(file, 'tools: []\n');
    writeFileSync(join(folder, 'a.yaml'), 'tools: []\n');
    const paths = [file, folder];
    const first = await catalogFingerprint(paths);
    assert.equal(await catalogFingerprint(paths), first, 'same files, same digest');

    // A save that writes the same bytes (or only touches the file) is no change.
    writeFileSync(file, 'tools: []\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    assert.equal(await catalogFingerprint(paths), first);
    // Files the loader does not read: nested folders, other extensions.
    writeFileSync(join(folder, 'nested', 'deep.yaml'), 'tools: []\n');
    writeFileSync(join(folder, 'notes.txt'), 'hello\n');
    assert.equal(await catalogFingerprint(paths), first);

    writeFileSync(file, 'tools: [] # edited\n');
    const edited = await catalogFingerprint(paths);
    assert.notEqual(edited, first, 'an edit changes the digest');
    writeFileSync(join(folder, 'b.yml'), 'tools: []\n');
    const added = await catalogFingerprint(paths);
    assert.notEqual(added, edited, 'a new catalog file in the folder changes the digest');
    rmSync(join(folder, 'b.yml'));
    assert.equal(await catalogFingerprint(paths), edited, 'removing it again restores the digest');
    assert.notEqual(await catalogFingerprint([file]), edited, 'the set of paths counts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
