// The fast catalog reader (js-yaml with a tree of node lines) must give the
// same data and the same line for every node as the careful one (the `yaml`
// package's document model), on every catalog in this repository and on the
// shapes YAML allows: flow and block style, anchors and merge keys, block
// scalars, comments, keys without values.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCarefully, parseCatalogText } from '../../../src/core/catalog/yaml-file';
import { parseYamlFast } from '../../../src/core/catalog/yaml-fast';

const root = join(__dirname, '..', '..', '..', '..');

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

/** Every path into a value: keys of mappings, indices of lists. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function assertSame(file: string, text: string): void {
  const fast = parseCatalogText(file, text, {});
  const careful = parseCarefully(file, text, {});
  assert.deepEqual(fast.diagnostics, careful.diagnostics, `${file}: diagnostics`);
  assert.equal(Boolean(fast.raw), Boolean(careful.raw));
  if (!fast.raw || !careful.raw) return;
  assert.deepEqual(fast.raw.settings, careful.raw.settings, `${file}: settings`);
  for (const p of paths(careful.raw.settings).filter((x) => x[0] !== 'tools')) {
    assert.equal(fast.raw.at.line(p), careful.raw.at.line(p), `${file}: line of ${JSON.stringify(p)}`);
  }
  assert.equal(fast.raw.tools.length, careful.raw.tools.length);
  fast.raw.tools.forEach((t, i) => {
    const c = careful.raw?.tools[i];
    assert.ok(c);
    assert.deepEqual(t.value, c.value, `${file}: tool #${i + 1}`);
    assert.equal(t.line, c.line, `${file}: line of tool #${i + 1}`);
    for (const p of paths(c.value)) assert.equal(t.at.line(p), c.at.line(p), `${file}: tool #${i + 1} ${JSON.stringify(p)}`);
  });
}

const SHAPES: Record<string, string> = {
  flow: 'groups: [ops]\ntools: [{ name: a, exec: "echo 1", params: [{name: x}] }, {name: b, exec: x}]\n',
  anchors: [
    'x-defaults: &d',
    '  timeout: 3',
    '  env: { A: "1" }',
    'tools:',
    '  - <<: *d',
    '    name: a',
    '    exec: echo {{ x | quote }}',
    '    params:',
    '      - name: x',
    '        description: >',
    '          folded',
    '          text',
    '  -',
    '    # a comment before the first key',
    '    name: b',
    '    exec: |',
    '      echo one',
    '      echo two',
    '    env:',
    '    params:',
    '',
    '      - { name: y, type: int, default: 0x1F }',
    '      - name: z',
    '        default: ~',
  ].join('\n'),
  scalars: 'tools:\n  - name: t\n    exec: "a: b # not a comment"\n    example: \'it\'\'s\'\n    timeout: 1.5\n    stdin: True\n    cache_ttl: 1e3\n',
  notAMapping: '- just\n- a list\n',
  empty: '# nothing here\n',
  document: '---\ntools:\n  - name: a\n    exec: x\n...\n',
};

describe('the fast catalog reader agrees with the careful one', () => {
  for (const file of yamlFiles(root).filter((f) => !f.includes(`${join('out', '')}`) && !f.includes('dist'))) {
    test(file.slice(root.length + 1), () => assertSame(file, readFileSync(file, 'utf8')));
  }
  for (const [name, text] of Object.entries(SHAPES)) {
    test(`shape: ${name}`, () => {
      assert.ok(parseYamlFast(text), 'the fast path takes it');
      assertSame(`${name}.yaml`, text);
    });
  }

  test('what it declines goes the careful way, with the careful messages', () => {
    const broken = 'tools:\n  - name: "a\n    exec: x\n';
    assert.equal(parseYamlFast(broken), undefined);
    const r = parseCatalogText('broken.yaml', broken, {});
    assert.match(r.diagnostics[0]?.message ?? '', /quoted string opened on line 2/);
    const dup = 'tools:\n  - name: a\n    name: b\n    exec: x\n';
    assert.equal(parseYamlFast(dup), undefined);
    assert.deepEqual(parseCatalogText('dup.yaml', dup, {}), parseCarefully('dup.yaml', dup, {}));
    const laughs = ['x-a: &a [1, 2]', ...Array.from({ length: 60 }, (_, i) => `x-${i}: [*a, *a]`), 'tools: []'].join('\n');
    assert.equal(parseYamlFast(laughs), undefined, 'many aliases: the careful path caps their expansion');
  });
});
