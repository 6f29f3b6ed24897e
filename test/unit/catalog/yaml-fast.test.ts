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
import type { ParseCache } from '../../../src/core/cache/parse-cache';

/** A parse cache in memory that counts what it is asked. */
class CountingCache implements ParseCache {
  readonly entries = new Map<string, string>();
  hits = 0;
  sets = 0;
  get(key: string): string | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) this.hits++;
    return v;
  }
  set(key: string, value: string): void {
    this.sets++;
    this.entries.set(key, value);
  }
}

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

function assertSame(file: string, text: string, cache?: ParseCache): void {
  const fast = parseCatalogText(file, text, {}, cache);
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

describe('a file read back from the parse cache is the same as read by the careful reader', () => {
  const files = yamlFiles(root).filter((f) => !f.includes(`${join('out', '')}`) && !f.includes('dist'));
  const cases: Array<[string, string]> = [...files.map((f): [string, string] => [f, readFileSync(f, 'utf8')]), ...Object.entries(SHAPES).map(([n, t]): [string, string] => [`${n}.yaml`, t])];
  for (const [file, text] of cases) {
    test(file.startsWith(root) ? file.slice(root.length + 1) : `shape: ${file}`, () => {
      const cache = new CountingCache();
      assertSame(file, text, cache);
      const stored = cache.sets;
      assert.ok(stored <= 1);
      // The second read is restored from what the first stored: data, lines and deep lines alike.
      assertSame(file, text, cache);
      assert.equal(cache.sets, stored, 'nothing stored twice');
      assert.equal(cache.hits, stored, 'a stored file is read back');
    });
  }

  test('values JSON cannot carry are not stored; a damaged entry is a miss', () => {
    const special = 'tools:\n  - name: a\n    exec: x\n    timeout: .inf\n    x-n: -0.0\n';
    const cache = new CountingCache();
    assertSame('special.yaml', special, cache);
    assert.equal(cache.sets, 0, '.inf and -0 would come back changed');
    const plain = 'tools:\n  - name: a\n    exec: echo {{ x }}\n    params: [{ name: x }]\n';
    assertSame('plain.yaml', plain, cache);
    assert.equal(cache.sets, 1);
    for (const k of cache.entries.keys()) cache.entries.set(k, '{"root": {"line": 1, "children": [');
    assertSame('plain.yaml', plain, cache);
    assert.equal(cache.sets, 2, 'the damaged entry is written again');
  });

  test('a __proto__ key stays an own key, as js-yaml reads it', () => {
    const text = 'tools:\n  - name: a\n    exec: x\n    env: { __proto__: "v", A: "1" }\n';
    const cache = new CountingCache();
    const first = parseCatalogText('proto.yaml', text, {}, cache);
    const again = parseCatalogText('proto.yaml', text, {}, cache);
    assert.equal(cache.hits, 1);
    const env = (again.raw?.tools[0]?.value as { env: Record<string, unknown> }).env;
    assert.deepEqual(Object.keys(env), ['__proto__', 'A']);
    assert.equal(Object.getPrototypeOf(env), Object.prototype);
    assert.deepEqual(again.raw?.tools[0]?.value, first.raw?.tools[0]?.value);
  });
});
