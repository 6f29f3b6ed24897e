import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { loadCatalog } from '../../../src/core/catalog/load';
import { STARTER_CATALOG } from '../../../src/extension/starter-catalog';

const root = join(__dirname, '..', '..', '..', '..');
const schema = JSON.parse(readFileSync(join(root, 'media', 'tools.schema.json'), 'utf8')) as object;
// The schema is checked with ajv, which the MCP SDK already brings along.
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

void describe('tools.yaml schema and starter catalog', () => {
  void test('the sample tools.yaml and the starter catalog satisfy the schema', () => {
    for (const text of [readFileSync(join(root, 'tools.yaml'), 'utf8'), STARTER_CATALOG]) {
      const doc: unknown = parse(text, { merge: true });
      assert.ok(validate(doc), JSON.stringify(validate.errors));
    }
  });

  void test('the schema rejects what the loader rejects: two kinds, unknown fields, bad param types', () => {
    assert.equal(validate({ tools: [{ name: 'a', exec: 'x', curl: 'y' }] }), false);
    assert.equal(validate({ tools: [{ name: 'a', exec: 'x', bogus: 1 }] }), false);
    assert.equal(validate({ tools: [{ name: 'a', exec: 'x', params: [{ name: 'p', type: 'string' }] }] }), false);
    assert.equal(validate({ tools: [{ exec: 'x' }] }), false);
    assert.equal(validate({ tools: [{ fn: './t.mjs:f', params: [{ name: 'p' }] }], 'x-note': 1 }), true);
  });

  void test('the starter catalog loads without a single diagnostic', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcc-starter-'));
    writeFileSync(join(dir, 'tools.yaml'), STARTER_CATALOG);
    const c = await loadCatalog([join(dir, 'tools.yaml')]);
    assert.deepEqual(c.diagnostics, []);
    assert.deepEqual([...c.tools.keys()].sort(), ['public.hello', 'public.list_files', 'public.show_session']);
  });
});
