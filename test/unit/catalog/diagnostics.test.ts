import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadCatalog } from '../../../src/core/catalog/load';
import { errors, lineOf, loadText, only, warnings, writeFiles } from './fixture';

void describe('errors name the file and the line', () => {
  void test('bad YAML: the line of the YAML error; the file loads nothing, other files still do', async () => {
    const bad = 'tools:\n  - name: a\n    exec: echo\n  - name: b\n    exec: [unclosed\n';
    const dir = await writeFiles({ 'bad.yaml': bad, 'good.yaml': 'tools:\n  - {name: g, exec: echo}\n' });
    const c = await loadCatalog([dir], { env: {} });
    assert.deepEqual([...c.tools.keys()], ['public.g']);
    const e = errors(c);
    assert.ok(e.length >= 1);
    assert.ok(e.every((d) => d.file === join(dir, 'bad.yaml')));
    assert.match(e[0].message, /invalid YAML/);
    assert.equal(e[0].line, lineOf(bad, '[unclosed'));
    assert.ok(c.files.includes(join(dir, 'bad.yaml')), 'a broken file is still watched');
  });

  void test('an unclosed quote is reported on the line that opened it, not at the end of the file', async () => {
    const text = 'tools:\n  - name: a\n    exec: "unterminated\n  - name: b\n    exec: echo\n';
    const { catalog } = await loadText(text);
    const d = errors(catalog)[0];
    assert.equal(d.line, lineOf(text, '"unterminated'));
    assert.match(d.message, /quoted string opened on line 3 is never closed/);
  });

  void test('a YAML error in the middle reports that line', async () => {
    const text = 'tools:\n  - name: a\n    exec: echo\n  - name: b\n    exec: "a" b\n  - name: c\n    exec: echo\n';
    const { catalog, file } = await loadText(text);
    const d = errors(catalog)[0];
    assert.equal(d.file, file);
    assert.equal(d.line, lineOf(text, 'exec: "a" b'));
    assert.equal(catalog.tools.size, 0);
  });

  void test('duplicate mapping keys in YAML are an error on the repeated key', async () => {
    const text = 'tools:\n  - name: a\n    exec: echo\n    exec: echo 2\n';
    const { catalog } = await loadText(text);
    assert.equal(errors(catalog)[0].line, lineOf(text, 'exec: echo 2'));
  });

  void test('unknown param type: error on the type line, the rest of the catalog loads', async () => {
    const text = `tools:
  - name: ok1
    exec: echo
  - name: broken
    params:
      - name: p
        type: string
    exec: echo
  - name: ok2
    exec: echo
`;
    const { catalog, file } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.ok1', 'public.ok2']);
    const d = only(errors(catalog), /unknown type/);
    assert.equal(d.file, file);
    assert.equal(d.line, lineOf(text, 'type: string'));
    assert.match(d.message, /tool 'broken'.*"string".*str, int, float, bool, list, dict/);
  });

  void test('exec / curl without a name: error on the entry line', async () => {
    const text = 'tools:\n  - name: ok\n    exec: echo\n  - description: nameless\n    exec: echo\n  - curl: http://x/\n';
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.ok']);
    assert.equal(only(errors(catalog), /exec tool has no 'name'/).line, lineOf(text, 'description: nameless'));
    assert.equal(only(errors(catalog), /curl tool has no 'name'/).line, lineOf(text, 'curl: http'));
  });

  void test('more than one of fn/exec/curl, or none: error', async () => {
    const text = `tools:
  - name: both
    exec: echo
    fn: pkg.mod:f
  - name: three
    exec: echo
    curl: http://x/
    fn: pkg.mod:f
  - name: none
    description: nothing to run
  - name: ok
    exec: echo
`;
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.ok']);
    assert.equal(only(errors(catalog), /has exec and fn/).line, lineOf(text, 'fn: pkg.mod:f'));
    assert.match(only(errors(catalog), /has exec and curl and fn/).message, /exactly one of exec, curl or fn/);
    assert.equal(only(errors(catalog), /tool 'none': needs exactly one/).line, lineOf(text, '- name: none'));
  });

  void test('duplicate key: the message names both places, file:line each', async () => {
    const a = 'groups: [ops]\ntools:\n  - name: x\n    exec: echo\n  - name: deploy\n    exec: echo a\n';
    const b = 'tools:\n  - name: deploy\n    groups: [ops]\n    exec: echo b\n';
    const dir = await writeFiles({ 'a.yaml': a, 'b.yaml': b });
    const c = await loadCatalog([dir], { env: {} });
    assert.equal((c.tools.get('ops.deploy') as { command: string }).command, 'echo a', 'the first one wins');
    const d = only(errors(c), /duplicate tool key 'ops.deploy'/);
    assert.equal(d.file, join(dir, 'b.yaml'));
    assert.equal(d.line, 2);
    assert.ok(d.message.includes(`${join(dir, 'a.yaml')}:${lineOf(a, 'name: deploy')}`), d.message);
    assert.ok(d.message.includes(`${join(dir, 'b.yaml')}:2`), d.message);
  });

  void test('bad names: tools, groups and params', async () => {
    const text = `tools:
  - name: a.b
    exec: echo
  - name: -dash
    exec: echo
  - name: okgroup
    groups: [good, "bad group"]
    exec: echo
  - name: p1
    params:
      - name: 1x
    exec: echo
  - name: p2
    params:
      - name: context
    exec: echo
  - name: p3
    params:
      - name: with-dash
    exec: echo
  - name: fine-name_2
    params:
      - name: _ok9
    exec: echo
`;
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.fine-name_2']);
    assert.equal(only(errors(catalog), /'a\.b'/).line, lineOf(text, 'name: a.b'));
    assert.match(only(errors(catalog), /'a\.b'/).message, /dots separate/);
    assert.equal(only(errors(catalog), /'-dash'/).line, lineOf(text, 'name: -dash'));
    assert.equal(only(errors(catalog), /invalid group 'bad group'/).line, lineOf(text, 'bad group'));
    assert.equal(only(errors(catalog), /'1x'/).line, lineOf(text, 'name: 1x'));
    assert.equal(only(errors(catalog), /'context' is reserved/).line, lineOf(text, 'name: context'));
    assert.equal(only(errors(catalog), /'with-dash'/).line, lineOf(text, 'name: with-dash'));
  });

  void test('a template that does not parse: error on the exec / transform line', async () => {
    const text = `tools:
  - name: a
    exec: echo {{ p | quote
  - name: b
    exec: echo ok
    transform: "{% if %}x"
  - name: c
    exec: echo {% for x in y %}
`;
    const { catalog } = await loadText(text);
    assert.equal(catalog.tools.size, 0);
    assert.equal(only(errors(catalog), /tool 'a': 'exec' is not a valid template/).line, lineOf(text, 'exec: echo {{'));
    assert.equal(only(errors(catalog), /tool 'b': 'transform' is not a valid template/).line, lineOf(text, 'transform:'));
    assert.equal(only(errors(catalog), /tool 'c'/).line, lineOf(text, 'for x in y'));
  });

  void test('wrongly typed fields are errors naming the field', async () => {
    const text = `tools:
  - name: t1
    exec: echo
    stdin: "yes"
  - name: t2
    exec: echo
    timeout: -1
  - name: t3
    exec: echo
    limits: {mem_mb: lots}
  - name: t4
    exec: echo
    env: [A, B]
  - name: t5
    exec: echo
    params:
      - {name: n, type: int, default: abc}
  - name: t6
    exec: echo
    params: {name: n}
  - name: t7
    exec: [echo]
  - name: t8
    exec: echo
    env:
      NESTED: {a: 1}
`;
    const { catalog } = await loadText(text);
    assert.equal(catalog.tools.size, 0);
    assert.equal(only(errors(catalog), /'stdin' must be true or false/).line, lineOf(text, 'stdin:'));
    assert.equal(only(errors(catalog), /'timeout' must be a positive number, got the integer -1/).line, lineOf(text, 'timeout: -1'));
    assert.equal(only(errors(catalog), /'limits.mem_mb' must be a positive number/).line, lineOf(text, 'mem_mb'));
    assert.equal(only(errors(catalog), /'env' must be a mapping/).line, lineOf(text, 'env: [A, B]'));
    assert.equal(only(errors(catalog), /default must be an integer/).line, lineOf(text, 'default: abc'));
    assert.equal(only(errors(catalog), /'params' must be a list/).line, lineOf(text, 'params: {name: n}'));
    assert.equal(only(errors(catalog), /'exec' must be a string/).line, lineOf(text, 'exec: [echo]'));
    assert.equal(only(errors(catalog), /'env.NESTED' must be a string/).line, lineOf(text, 'NESTED'));
  });

  void test('a bad file-level setting stops that file only, and says so', async () => {
    const dir = await writeFiles({ 'a.yaml': 'groups: [bad.group]\ntools:\n  - {name: a, exec: echo}\n', 'b.yaml': 'tools:\n  - {name: b, exec: echo}\n' });
    const c = await loadCatalog([dir], { env: {} });
    assert.deepEqual([...c.tools.keys()], ['public.b']);
    assert.equal(only(errors(c), /invalid group 'bad.group'/).line, 1);
    assert.ok(only(errors(c), /no tool of this file is loaded/));
  });

  void test('duplicate param names are an error naming the first line', async () => {
    const text = 'tools:\n  - name: t\n    params:\n      - name: p\n      - name: p\n    exec: echo\n';
    const { catalog } = await loadText(text);
    const d = only(errors(catalog), /declared twice/);
    assert.equal(d.line, lineOf(text, '- name: p', 2));
    assert.match(d.message, new RegExp(`first at line ${lineOf(text, '- name: p')}`));
  });
});

void describe('warnings', () => {
  void test('an unquoted str/list/dict param in exec or transform warns; quoted, tojson, numbers and overrides do not', async () => {
    const text = `tools:
  - name: t
    params:
      - name: s
      - {name: l, type: list}
      - {name: d, type: dict}
      - {name: n, type: int}
      - {name: b, type: bool}
      - {name: f, type: float}
      - {name: k, override: secret}
    exec: echo {{ s }} {{ n }} {{ b }} {{ f }} {{ k }} {{ l | quote }} {{ d | tojson }} {{ s | length }}
    transform: grep {{ l }} | head -{{ n }} | tr {{ d.key }} x
`;
    const { catalog } = await loadText(text);
    assert.ok(catalog.tools.has('public.t'), 'warnings do not stop a tool');
    const ws = warnings(catalog);
    assert.equal(ws.length, 3, JSON.stringify(ws));
    assert.equal(only(ws, /'exec' outputs \{\{ s \}\}/).line, lineOf(text, 'exec:'));
    assert.match(only(ws, /'exec' outputs/).message, /quoting is the catalog author's job/);
    assert.equal(only(ws, /'transform' outputs \{\{ l \}\}/).line, lineOf(text, 'transform:'));
    assert.equal(only(ws, /'transform' outputs \{\{ d \}\}/).line, lineOf(text, 'transform:'));
  });

  void test("'python' on an exec tool is a load error naming the tool (as MCC refuses it)", async () => {
    const text = 'tools:\n  - name: t\n    python: python3.12\n    exec: echo\n  - name: u\n    exec: echo\n';
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.u']);
    const e = only(errors(catalog), /python/);
    assert.equal(e.line, lineOf(text, 'python:'));
    assert.match(e.message, /^tool 't': has 'python', which only a Python fn tool takes \(this is an exec tool\)/);
  });

  void test('a required param with a default warns', async () => {
    const text = 'tools:\n  - name: t\n    params:\n      - {name: p, required: true, default: x}\n    exec: echo\n';
    const { catalog } = await loadText(text);
    assert.ok(catalog.tools.has('public.t'));
    assert.equal(only(warnings(catalog), /default is never used/).line, lineOf(text, 'required: true'));
    assert.equal(catalog.tools.get('public.t')!.params[0].required, true);
  });

  void test("'return_type' is MCC's name for 'returns'; a template variable that is no parameter warns", async () => {
    const text = 'tools:\n  - name: t\n    return_type: dict\n    params: [{name: a}]\n    exec: echo {{ a | quote }} {{ b | quote }}\n';
    const { catalog } = await loadText(text);
    assert.equal(catalog.tools.get('public.t')!.returns, 'dict');
    assert.deepEqual(warnings(catalog).filter((w) => /unknown field/.test(w.message)), []);
    assert.equal(only(warnings(catalog), /uses \{\{ b \}\}, which is not a parameter/).line, lineOf(text, 'exec:'));
  });
});
