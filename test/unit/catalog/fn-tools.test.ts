import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FnTool } from '../../../src/core/catalog/types';
import type { FnResolver } from '../../../src/core/catalog/fn-resolver';
import { parseFnTarget } from '../../../src/core/catalog/fn-target';
import { errors, lineOf, loadText, only, tool, warnings } from './fixture';

void describe('fn targets', () => {
  void test('JS module:export and both Python spellings', () => {
    assert.deepEqual(parseFnTarget('./tools/net.mjs:lookup'), { language: 'js', modulePath: './tools/net.mjs', exportName: 'lookup', callableName: 'lookup' });
    assert.deepEqual(parseFnTarget('pkg.mod:Cls.method'), { language: 'python', module: 'pkg.mod', attrPath: ['Cls', 'method'], callableName: 'method' });
    assert.deepEqual(parseFnTarget('pkg.mod.func'), { language: 'python', module: 'pkg.mod', attrPath: ['func'], callableName: 'func' });
    for (const bad of ['func', 'a:b:c', './x.mjs', 'pkg-x.mod:f', 'pkg.mod:', 'pkg..mod.f']) {
      assert.equal(typeof parseFnTarget(bad), 'string', bad);
    }
  });
});

void describe('fn tools without a resolver', () => {
  void test('a JS fn tool loads with an absolute module path, export, takesContext and a default name', async () => {
    const text = 'tools:\n  - fn: ./tools/net.mjs:lookup\n    description: DNS\n    params:\n      - name: host\n  - name: named\n    fn: /abs/x.cjs:run\n    params: []\n';
    const { catalog, dir } = await loadText(text);
    assert.deepEqual(catalog.diagnostics, []);
    const t = tool(catalog, 'public.lookup') as FnTool;
    assert.equal(t.kind, 'fn');
    assert.equal(t.language, 'js');
    assert.equal(t.modulePath, join(dir, 'tools/net.mjs'));
    assert.equal(t.exportName, 'lookup');
    assert.equal(t.takesContext, true);
    assert.equal(t.target, './tools/net.mjs:lookup');
    assert.deepEqual(t.params.map((p) => p.name), ['host']);
    assert.equal((tool(catalog, 'public.named') as FnTool).modulePath, '/abs/x.cjs');
  });

  void test('a JS fn tool without params is an error at its line', async () => {
    const text = 'tools:\n  - name: ok\n    exec: echo\n  - name: js\n    fn: ./a.js:f\n';
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.ok']);
    assert.equal(only(errors(catalog), /must declare 'params'/).line, lineOf(text, 'fn: ./a.js:f'));
  });

  void test('a Python fn with declared params loads (takesContext false, python default python3); without params it warns and is skipped', async () => {
    const text = `tools:
  - fn: pkg.mod:Cls.run
    python: .venv/bin/python
    params:
      - name: x
  - fn: pkg.mod.other
    params: []
  - fn: pkg.mod:introspect_me
  - name: ok
    exec: echo
`;
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.run', 'public.other', 'public.ok']);
    const run = tool(catalog, 'public.run') as FnTool;
    assert.equal(run.language, 'python');
    assert.equal(run.python, '.venv/bin/python');
    assert.equal(run.takesContext, false);
    assert.equal((tool(catalog, 'public.other') as FnTool).python, 'python3');
    assert.equal(errors(catalog).length, 0);
    const w = only(warnings(catalog), /introspect_me/);
    assert.match(w.message, /function tools need the Python runtime; not supported yet/);
    assert.equal(w.line, lineOf(text, 'introspect_me'));
  });

  void test('a bad fn target is an error', async () => {
    const text = 'tools:\n  - name: t\n    fn: not a target\n';
    const { catalog } = await loadText(text);
    assert.equal(only(errors(catalog), /not a Python callable path/).line, 3);
  });
});

void describe('fn tools with a resolver', () => {
  void test('all fn tools go to the resolver once; keys and duplicates are computed from what it returns', async () => {
    const calls: FnTool[][] = [];
    const resolver: FnResolver = {
      resolve(tools) {
        calls.push(tools);
        const out = tools.map((t): FnTool => {
          if (t.target === 'pkg.mod:f') {
            return { ...t, name: 'renamed', description: 'doc', params: [{ name: 'n', type: 'int', required: true, hasDefault: false, hasOverride: false }], returns: 'int', takesContext: true };
          }
          return t;
        });
        return Promise.resolve({ tools: out.filter((t) => t.target !== 'pkg.gone:g'), diagnostics: [{ severity: 'error', file: tools[0].source.file, line: 9, message: 'import failed: pkg.gone' }] });
      },
    };
    const text = `groups: [py]
tools:
  - fn: pkg.mod:f
  - fn: pkg.gone:g
  - fn: ./x.mjs:h
    params: []
  - name: renamed
    exec: echo dup
`;
    const { catalog } = await loadText(text, { fnResolver: resolver });
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].map((t) => t.target), ['pkg.mod:f', 'pkg.gone:g', './x.mjs:h']);
    assert.equal(calls[0][0].paramsDeclared, false);
    assert.equal(calls[0][2].paramsDeclared, true);
    const f = tool(catalog, 'py.renamed') as FnTool;
    assert.equal(f.kind, 'fn', 'the fn entry comes first in the file, so it keeps the key');
    assert.equal(f.returns, 'int');
    assert.ok(tool(catalog, 'py.h'));
    assert.equal(catalog.tools.size, 2);
    assert.ok(only(errors(catalog), /import failed/));
    assert.equal(only(errors(catalog), /duplicate tool key 'py.renamed'/).line, lineOf(text, 'name: renamed'));
  });

  void test('a resolver that throws becomes errors for its tools; exec tools still load', async () => {
    const resolver: FnResolver = { resolve: () => Promise.reject(new Error('python3 not found')) };
    const { catalog } = await loadText('tools:\n  - fn: pkg.mod:f\n  - {name: e, exec: echo}\n', { fnResolver: resolver });
    assert.deepEqual([...catalog.tools.keys()], ['public.e']);
    assert.match(only(errors(catalog), /python3 not found/).message, /tool 'f'/);
  });

  void test('names the resolver returns are checked like declared ones', async () => {
    const resolver: FnResolver = {
      resolve: (tools) => Promise.resolve({ tools: tools.map((t) => ({ ...t, name: 'bad.name', params: [{ name: 'context', type: 'str' as const, required: true, hasDefault: false, hasOverride: false }] })), diagnostics: [] }),
    };
    const { catalog } = await loadText('tools:\n  - fn: pkg.mod:f\n', { fnResolver: resolver });
    assert.equal(catalog.tools.size, 0);
    const d = only(errors(catalog), /invalid tool name 'bad.name'/);
    assert.match(d.message, /'context' is reserved/);
    assert.equal(d.line, 2);
  });
});
