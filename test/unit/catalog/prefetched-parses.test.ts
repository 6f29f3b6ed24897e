// Catalogs parsed ahead (by the CLI's prefetch worker) as a layer over the
// parse cache: a parse answers only for the text it was made from, once,
// and the load gives the same catalog as without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParseCache } from '../../../src/core/cache/parse-cache';
import { parseCacheKey, storedParse } from '../../../src/core/catalog/yaml-cached';
import { withPrefetchedParses } from '../../../src/core/catalog/prefetched-parses';
import { loadCatalog } from '../../../src/core/catalog/load';

const CATALOG = 'tools:\n  - name: hello\n    exec: echo {{ who }}\n    params:\n      - name: who\n        type: str\n';

class MapCache implements ParseCache {
  readonly entries = new Map<string, string>();
  readonly gets: string[] = [];
  get(key: string): string | undefined {
    this.gets.push(key);
    return this.entries.get(key);
  }
  set(key: string, value: string): void {
    this.entries.set(key, value);
  }
}

test('storedParse stores what it parsed, and passes on what the cache holds', () => {
  const cache = new MapCache();
  const stored = storedParse(CATALOG, cache);
  assert.ok(stored);
  assert.equal(cache.entries.get(parseCacheKey(CATALOG)), stored);
  cache.entries.set(parseCacheKey(CATALOG), 'held');
  assert.equal(storedParse(CATALOG, cache), 'held');
  assert.equal(storedParse('a: [unclosed', cache), undefined, 'what js-yaml declines is left to the careful path');
});

test('a prefetched parse answers once for its own text; other keys and every write go below', () => {
  const below = new MapCache();
  below.entries.set('ab'.repeat(32), 'from disk');
  const layered = withPrefetchedParses(below, [[CATALOG, 'ahead']]);
  assert.ok(layered);
  const key = parseCacheKey(CATALOG);
  assert.equal(layered.get(key), 'ahead');
  assert.equal(below.gets.includes(key), false, 'the disk was not asked');
  assert.equal(layered.get(key), undefined, 'used once, then dropped (the disk had none)');
  assert.equal(layered.get('ab'.repeat(32)), 'from disk');
  layered.set('cd'.repeat(32), 'new');
  assert.equal(below.entries.get('cd'.repeat(32)), 'new');
  assert.equal(withPrefetchedParses(below, []), below, 'nothing ahead: the cache itself');
  assert.ok(withPrefetchedParses(undefined, [[CATALOG, 'ahead']]), 'no disk cache: the parses still serve');
});

test('a catalog loads the same through a prefetched parse; one made of other text is not used', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'mcc-prefetch-')), 'tools.yaml');
  writeFileSync(file, CATALOG);
  const plain = await loadCatalog([file]);
  const stored = storedParse(CATALOG, undefined);
  assert.ok(stored);
  const ahead = await loadCatalog([file], { parseCache: withPrefetchedParses(undefined, [[CATALOG, stored]]) });
  assert.deepEqual([...ahead.tools.keys()], [...plain.tools.keys()]);
  assert.deepEqual(ahead.tools.get('public.hello'), plain.tools.get('public.hello'));
  assert.deepEqual(ahead.diagnostics, plain.diagnostics);
  // The file changed after the worker read it: its parse is keyed by the old text.
  const stale = storedParse(CATALOG.replace('hello', 'stale'), undefined);
  assert.ok(stale);
  const changed = await loadCatalog([file], { parseCache: withPrefetchedParses(undefined, [[CATALOG.replace('hello', 'stale'), stale]]) });
  assert.deepEqual([...changed.tools.keys()], ['public.hello']);
});
