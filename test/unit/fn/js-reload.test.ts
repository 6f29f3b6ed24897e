// Hot reload: a JavaScript module is loaded once per worker and loaded
// again when its file changes.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, jsTool, keptFn } from './helpers';

describe('JavaScript hot reload', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-fn-reload-'));
  const ex = keptFn({ poolSize: 1 });
  after(async () => {
    await ex.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const ext of ['mjs', 'cjs']) {
    test(`rewriting a .${ext} module: the next call sees the new code`, async () => {
      const file = join(dir, `tool.${ext}`);
      const source = (v: string): string =>
        ext === 'mjs'
          ? `let calls = 0;\nexport function version() { calls++; return { v: '${v}', calls }; }\n`
          : `let calls = 0;\nexports.version = () => { calls++; return { v: '${v}', calls }; };\n`;
      writeFileSync(file, source('one'));
      const tool = jsTool('version', {}, file);
      const a = await ex.run(tool, {}, call().ctx);
      const b = await ex.run(tool, {}, call().ctx);
      assert.deepEqual([a.value, b.value], [{ v: 'one', calls: 1 }, { v: 'one', calls: 2 }], 'loaded once, state kept');
      writeFileSync(file, source('two'));
      // Make sure the mtime moves even on a coarse-grained file system.
      const later = new Date(Date.now() + 5000);
      utimesSync(file, later, later);
      const c = await ex.run(tool, {}, call().ctx);
      assert.deepEqual(c.value, { v: 'two', calls: 1 });
    });
  }
});
