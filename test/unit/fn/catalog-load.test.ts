// The real catalog loader with the fn resolver: Python tools introspected,
// a broken one reported at its file and line, the others loaded.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadCatalog } from '../../../src/core/catalog/load';
import { FnToolResolver } from '../../../src/core/fn/fn-tool-resolver';
import type { FnTool } from '../../../src/core/catalog/types';
import { call, PY_DIR, keptFn } from './helpers';

describe('catalog load with fn tools', () => {
  test('introspects, reports the broken import with file, line, module and error, loads the rest', async () => {
    const file = join(PY_DIR, 'tools.yaml');
    const catalog = await loadCatalog([file], { fnResolver: new FnToolResolver() });
    assert.deepEqual([...catalog.tools.keys()].sort(), ['fn.annotated', 'fn.echo', 'fn.fetch', 'fn.set_and_delete']);
    const errors = catalog.diagnostics.filter((d) => d.severity === 'error');
    assert.equal(errors.length, 1, JSON.stringify(catalog.diagnostics));
    assert.equal(errors[0]?.file, file);
    assert.equal(errors[0]?.line, 7);
    assert.match(errors[0]?.message ?? '', /broken_tool.*cannot import module 'fnpkg\.broken'.*No module named 'module_that_does_not_exist'/);

    const fetch = catalog.tools.get('fn.fetch') as FnTool;
    assert.equal(fetch.description, 'from the YAML');
    assert.deepEqual(fetch.params.map((p) => p.name), ['url', 'delay']);
    assert.equal((catalog.tools.get('fn.set_and_delete') as FnTool).takesContext, true);
    assert.equal((catalog.tools.get('fn.annotated') as FnTool).description.split('\n')[0], 'Connects to a host.');

    // And the loaded tools run.
    const ex = keptFn({ poolSize: 1 });
    try {
      const r = await ex.run(fetch, { url: 'x', delay: 0 }, call().ctx);
      assert.deepEqual(r.value, ['x', 'fetched']);
      const e = await ex.run(catalog.tools.get('fn.echo') as FnTool, { q: 'y' }, call().ctx);
      assert.deepEqual(e.value, { params: { q: 'y' }, user: 'alice' });
    } finally {
      await ex.dispose();
    }
  });
});
