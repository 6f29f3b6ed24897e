import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { renderTemplate } from '../../../src/core/template/render';
import { shellQuote } from '../../../src/core/template/quote';
import { join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { loadCatalog } from '../../../src/core/catalog/load';
import type { ExecTool } from '../../../src/core/catalog/types';
import { errors, lineOf, loadText, only, tool, warnings, writeFiles } from './fixture';

const FIXTURES = resolve(__dirname, '../../../../test/fixtures/catalog');

void describe('file-level settings', () => {
  void test('groups default to public; group: x equals groups: [x]; tool groups override', async () => {
    const a = await loadText('tools:\n  - name: t\n    exec: echo\n');
    assert.deepEqual([...a.catalog.tools.keys()], ['public.t']);
    const b = await loadText('group: ops\ntools:\n  - name: t\n    exec: echo\n  - name: u\n    groups: [db, admin]\n    exec: echo\n');
    assert.deepEqual([...b.catalog.tools.keys()], ['ops.t', 'admin.db.u']);
    assert.deepEqual(b.catalog.diagnostics, []);
  });

  void test('keys put public and admin first, keep the rest in order, drop repeats', async () => {
    const { catalog } = await loadText(
      'tools:\n' +
        '  - {name: deploy, groups: [ops, admin], exec: x}\n' +
        '  - {name: a, groups: [z, y, public], exec: x}\n' +
        '  - {name: b, groups: [ops, ops], exec: x}\n' +
        '  - {name: c, groups: [], exec: x}\n',
    );
    assert.deepEqual([...catalog.tools.keys()], ['admin.ops.deploy', 'public.z.y.a', 'ops.b', 'c']);
    assert.deepEqual(tool(catalog, 'ops.b').groups, ['ops']);
  });

  void test('file env merges under tool env (tool wins); env values become strings', async () => {
    const { catalog } = await loadText(
      'env: {A: file, B: file, N: 3}\ntools:\n  - name: t\n    env: {B: tool, C: true, D: null}\n    exec: echo\n  - name: u\n    exec: echo\n',
    );
    assert.deepEqual(tool(catalog, 'public.t').env, { A: 'file', B: 'tool', N: '3', C: 'true', D: '' });
    assert.deepEqual(tool(catalog, 'public.u').env, { A: 'file', B: 'file', N: '3' });
  });

  void test("env_file: the tool's own, else the file's; cwd; both absolute against the catalog folder", async () => {
    const { catalog, dir } = await loadText(
      'env_file: ops.env\ntools:\n  - name: t\n    exec: echo\n  - name: u\n    env_file: sub/own.env\n    cwd: work\n    exec: echo\n  - name: v\n    env_file: /etc/abs.env\n    cwd: /tmp\n    exec: echo\n  - name: w\n    cwd: ~/x\n    exec: echo\n',
    );
    assert.equal(tool(catalog, 'public.t').envFile, join(dir, 'ops.env'));
    assert.equal(tool(catalog, 'public.t').cwd, undefined);
    assert.equal(tool(catalog, 'public.u').envFile, join(dir, 'sub/own.env'));
    assert.equal(tool(catalog, 'public.u').cwd, join(dir, 'work'));
    assert.equal(tool(catalog, 'public.v').envFile, '/etc/abs.env');
    assert.equal(tool(catalog, 'public.v').cwd, '/tmp');
    assert.equal(tool(catalog, 'public.w').cwd, join(homedir(), 'x'));
    assert.equal(tool(catalog, 'public.t').catalogDir, dir);
  });

  void test('x- keys are ignored at every level; YAML anchors and merge keys work', async () => {
    const text =
      'x-common: &common\n  env_passthrough: true\n  timeout: 7\n' +
      'tools:\n  - name: t\n    <<: *common\n    x-note: mine\n    params:\n      - {name: p, x-ui: wide}\n    exec: echo {{ p | quote }}\n';
    const { catalog } = await loadText(text);
    assert.deepEqual(catalog.diagnostics, []);
    const t = tool(catalog, 'public.t');
    assert.equal(t.envPassthrough, true);
    assert.equal(t.limits.timeout, 7);
  });

  void test('unknown fields are warnings, on their own line, and the tool still loads', async () => {
    const text = 'grups: [x]\ntools:\n  - name: t\n    exec: echo\n    descripton: typo\n    params:\n      - name: p\n        defualt: 1\n';
    const { catalog } = await loadText(text);
    assert.ok(catalog.tools.has('public.t'));
    assert.equal(errors(catalog).length, 0);
    assert.equal(only(warnings(catalog), /'grups'/).line, lineOf(text, 'grups'));
    assert.equal(only(warnings(catalog), /'descripton'/).line, lineOf(text, 'descripton'));
    assert.equal(only(warnings(catalog), /'defualt'/).line, lineOf(text, 'defualt'));
  });
});

void describe('tool fields', () => {
  void test('every field lands in the ToolDef', async () => {
    const text = `groups: [ops]
tools:
  - name: grep
    description: Searches.
    example: grep(pattern='x')
    params:
      - name: pattern
        description: regex
        example: "a.*"
      - {name: n, type: int, default: 3}
    exec: grep -c {{ pattern | quote }}
    stdin: true
    env_passthrough: true
    limits: {timeout: 5, mem_mb: 256, cpu_sec: 2, fsize_mb: 1, nofile: 64}
    transform: [sort, uniq -c]
    cache_ttl: 30
    pty: false
    returns: int
`;
    const { catalog, file, dir } = await loadText(text);
    assert.deepEqual(catalog.diagnostics, []);
    const t = tool(catalog, 'ops.grep') as ExecTool;
    assert.equal(t.kind, 'exec');
    assert.equal(t.name, 'grep');
    assert.equal(t.description, 'Searches.');
    assert.equal(t.example, "grep(pattern='x')");
    assert.equal(t.command, 'grep -c {{ pattern | quote }}');
    assert.equal(t.stdin, true);
    assert.equal(t.envPassthrough, true);
    assert.deepEqual(t.limits, { timeout: 5, mem_mb: 256, cpu_sec: 2, fsize_mb: 1, nofile: 64 });
    assert.equal(t.transform, 'sort | uniq -c');
    assert.equal(t.cacheTtl, 30);
    assert.equal(t.pty, false);
    assert.equal(t.returns, 'int');
    assert.deepEqual(t.source, { file, line: lineOf(text, '- name: grep') });
    assert.equal(t.catalogDir, dir);
    assert.equal(t.params.length, 2);
    assert.deepEqual(t.params[0], { name: 'pattern', type: 'str', required: true, hasDefault: false, hasOverride: false, description: 'regex', example: 'a.*' });
    assert.deepEqual(t.params[1], { name: 'n', type: 'int', required: false, hasDefault: true, hasOverride: false, default: 3 });
  });

  void test('defaults: no stdin, no passthrough, no limits, pty unset', async () => {
    const { catalog } = await loadText('tools:\n  - name: t\n    exec: echo\n');
    const t = tool(catalog, 'public.t');
    assert.equal(t.stdin, false);
    assert.equal(t.envPassthrough, false);
    assert.deepEqual(t.limits, {});
    assert.deepEqual(t.env, {});
    assert.equal(t.pty, undefined);
    assert.equal(t.transform, undefined);
    assert.equal(t.description, '');
  });

  void test('timeout is limits.timeout; a string transform is kept as written', async () => {
    const { catalog } = await loadText('tools:\n  - {name: t, timeout: 2.5, transform: "tr a-z A-Z", exec: echo}\n');
    assert.equal(tool(catalog, 'public.t').limits.timeout, 2.5);
    assert.equal(tool(catalog, 'public.t').transform, 'tr a-z A-Z');
  });

  void test('params alias parameters; required/default rule; override; bare-name shorthand', async () => {
    const text = `tools:
  - name: t
    parameters:
      - name: a
      - {name: b, default: x}
      - {name: c, required: false}
      - {name: d, default: null}
      - {name: e, type: float, default: "1.5"}
      - {name: key, override: s3cret}
      - f
    exec: echo
`;
    const { catalog } = await loadText(text);
    assert.deepEqual(catalog.diagnostics, []);
    const ps = tool(catalog, 'public.t').params;
    assert.deepEqual(ps.map((p) => [p.name, p.required, p.hasDefault]), [
      ['a', true, false], ['b', false, true], ['c', false, false], ['d', false, true], ['e', false, true], ['key', false, false], ['f', true, false],
    ]);
    assert.equal(ps[3].default, null);
    assert.equal(ps[4].default, 1.5);
    assert.equal(ps[5].hasOverride, true);
    assert.equal(ps[5].override, 's3cret');
  });

  void test('every param type is accepted', async () => {
    const { catalog } = await loadText(
      'tools:\n  - name: t\n    params:\n' + ['str', 'int', 'float', 'bool', 'list', 'dict'].map((ty) => `      - {name: p_${ty}, type: ${ty}}\n`).join('') + '    exec: echo\n',
    );
    assert.deepEqual(tool(catalog, 'public.t').params.map((p) => p.type), ['str', 'int', 'float', 'bool', 'list', 'dict']);
  });
});

void describe('curl shorthand', () => {
  void test('a bare URL is single-quoted; flags are used as written; stdin adds --json @-', async () => {
    const { catalog } = await loadText(`tools:
  - name: a
    curl: https://example.com/x?a=1&b=2
  - name: b
    curl: "-H 'Accept: text/plain' https://example.com/"
  - name: c
    curl: http://127.0.0.1/post
    stdin: true
  - name: d
    curl: "http://h/it's"
`);
    assert.deepEqual(errors(catalog), []);
    const cmd = (k: string) => (tool(catalog, k) as ExecTool).command;
    assert.equal(tool(catalog, 'public.a').kind, 'exec');
    assert.equal(cmd('public.a'), "curl -sL -o - 'https://example.com/x?a=1&b=2'");
    assert.equal(cmd('public.b'), "curl -sL -o - -H 'Accept: text/plain' https://example.com/");
    assert.equal(cmd('public.c'), "curl -sL -o - 'http://127.0.0.1/post' --json @-");
    assert.equal(cmd('public.d'), `curl -sL -o - 'http://h/it'"'"'s'`);
    assert.equal(tool(catalog, 'public.c').stdin, true);
  });

  void test('a templated URL is rendered, then quoted whole: a param cannot break out, and no unquoted warning', async () => {
    const { catalog } = await loadText(`tools:
  - name: q
    params: [{ name: term }]
    curl: https://example.com/search?q={{ term }}&x=1
`);
    assert.deepEqual(catalog.diagnostics, []);
    const command = (tool(catalog, 'public.q') as ExecTool).command;
    const evil = "a'; touch /tmp/pwned; echo '";
    const rendered = renderTemplate(command, { term: evil });
    assert.equal(rendered, `curl -sL -o - ${shellQuote(`https://example.com/search?q=${evil}&x=1`)}`);
    assert.equal(renderTemplate(command, { term: 'plain' }), 'curl -sL -o - \'https://example.com/search?q=plain&x=1\'');
  });

  void test("'| quote' inside a shorthand URL is a warning that points to urlencode", async () => {
    const { catalog } = await loadText(`tools:
  - name: q
    params: [{ name: term }]
    curl: https://example.com/{{ term | quote }}
`);
    assert.equal(catalog.tools.size, 1);
    assert.match(only(warnings(catalog), /quotes the whole URL/).message, /urlencode/);
  });
});

void describe('${VAR} substitution at load', () => {
  void test('replaces ${VAR} and $VAR in every string value, leaves unset ones and templates alone', async () => {
    const env = { HOST: 'db.local', DIR: '/srv', TOKEN: 'abc', GRP: 'ops', p: 'NOPE' };
    const text = `groups: [$GRP]
env: {URL: "https://\${HOST}/x"}
tools:
  - name: t
    description: on $HOST and $UNSET and \${UNSET2}
    cwd: $DIR/work
    params:
      - {name: p, default: $TOKEN}
    exec: echo {{ p | quote }} $HOST {% if p %}\${HOST}{% endif %} {{ "$HOST" }} $$ $1 "$MCC_CTX_USER"
`;
    const { catalog } = await loadText(text, { env: { ...env, MCC_CTX_USER: 'forged' } });
    assert.deepEqual(errors(catalog), []);
    const t = tool(catalog, 'ops.t') as ExecTool;
    assert.equal(t.env.URL, 'https://db.local/x');
    assert.equal(t.description, 'on db.local and $UNSET and ${UNSET2}');
    assert.equal(t.cwd, '/srv/work');
    assert.equal(t.params[0].default, 'abc');
    // Template regions are untouched; MCC_CTX* is never substituted (it is the caller's, per call).
    assert.equal(t.command, 'echo {{ p | quote }} db.local {% if p %}db.local{% endif %} {{ "$HOST" }} $$ $1 "$MCC_CTX_USER"');
  });

  void test('defaults to process.env', async () => {
    process.env.MCC_TEST_SUBST = 'from-process';
    const dir = await writeFiles({ 't.yaml': 'tools:\n  - {name: t, description: $MCC_TEST_SUBST, exec: echo}\n' });
    const c = await loadCatalog([dir]);
    delete process.env.MCC_TEST_SUBST;
    assert.equal(tool(c, 'public.t').description, 'from-process');
  });
});

void describe('paths', () => {
  void test('a folder loads every *.yaml / *.yml in name order, nothing else; files lists them', async () => {
    const c = await loadCatalog([join(FIXTURES, 'multi')], { env: {} });
    assert.deepEqual(c.files, [join(FIXTURES, 'multi/a.yaml'), join(FIXTURES, 'multi/b.yml')]);
    assert.deepEqual([...c.tools.keys()], ['public.first', 'ops.second', 'ops.third']);
    assert.deepEqual(c.diagnostics, []);
  });

  void test('several paths at once, a file given twice is read once', async () => {
    const dir = await writeFiles({ 'x.yaml': 'tools:\n  - {name: x, exec: echo}\n', 'y.yaml': 'tools:\n  - {name: y, exec: echo}\n' });
    const c = await loadCatalog([join(dir, 'y.yaml'), dir], { env: {} });
    assert.deepEqual([...c.tools.keys()], ['public.y', 'public.x']);
    assert.equal(c.files.length, 2);
    assert.deepEqual(c.diagnostics, []);
  });

  void test('a missing path is an error; the other files still load', async () => {
    const dir = await writeFiles({ 'ok.yaml': 'tools:\n  - {name: ok, exec: echo}\n' });
    const missing = join(dir, 'nope.yaml');
    const c = await loadCatalog([missing, join(dir, 'ok.yaml')], { env: {} });
    assert.ok(c.tools.has('public.ok'));
    const d = only(errors(c), /cannot read/);
    assert.equal(d.file, missing);
    assert.match(d.message, /no such file/);
  });

  void test('an unreadable file is an error; the other files still load', async () => {
    const { symlink } = await import('node:fs/promises');
    const dir = await writeFiles({ 'b.yaml': 'tools:\n  - {name: b, exec: echo}\n' });
    // A dangling link cannot be read, even by root.
    await symlink(join(dir, 'missing-target'), join(dir, 'a.yaml'));
    const c = await loadCatalog([dir], { env: {} });
    assert.deepEqual([...c.tools.keys()], ['public.b']);
    assert.equal(only(errors(c), /cannot read catalog file/).file, join(dir, 'a.yaml'));
  });

  void test('an empty folder and an empty file are warnings, not errors', async () => {
    const empty = await writeFiles({});
    const c = await loadCatalog([empty], { env: {} });
    assert.equal(errors(c).length, 0);
    assert.match(only(warnings(c), /no \*\.yaml/).message, /folder/);
    const e = await loadText('');
    assert.equal(errors(e.catalog).length, 0);
    assert.equal(warnings(e.catalog).length, 1);
  });

  void test('loading never throws, whatever the input', async () => {
    for (const text of ['[1, 2]', 'tools: 3', 'tools: [1, "x", null, {}]', '--- !!binary x', 'a: *nope', '\t\tbad']) {
      const { catalog } = await loadText(text);
      assert.ok(catalog.diagnostics.length > 0, text);
      assert.equal(catalog.tools.size, 0);
    }
  });
});

void describe('env_passthrough', () => {
  void test('true, false, a list of names, or one name; MCC_TOKEN and MCC_CTX* in a list are warned about', async () => {
    const { catalog } = await loadText(
      'tools:\n' +
        '  - {name: a, exec: x}\n' +
        '  - {name: b, exec: x, env_passthrough: true}\n' +
        '  - {name: c, exec: x, env_passthrough: [https_proxy, NO_PROXY, https_proxy]}\n' +
        '  - {name: d, exec: x, env_passthrough: https_proxy}\n' +
        '  - {name: e, exec: x, env_passthrough: [MCC_TOKEN, MCC_CTX_USER, OK]}\n',
    );
    const passthrough = (name: string): unknown => (catalog.tools.get(`public.${name}`) as ExecTool).envPassthrough;
    assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map(passthrough), [false, true, ['https_proxy', 'NO_PROXY'], ['https_proxy'], ['MCC_TOKEN', 'MCC_CTX_USER', 'OK']]);
    assert.deepEqual(warnings(catalog).map((d) => d.message), ["tool 'e': 'env_passthrough' lists MCC_TOKEN, MCC_CTX_USER, which no tool ever receives from the server (ignored)"]);
  });

  void test('anything else is a clear error naming the field', async () => {
    const { catalog } = await loadText('tools:\n  - {name: a, exec: x, env_passthrough: [has-dash, "x y"]}\n  - {name: b, exec: x, env_passthrough: 3}\n');
    assert.equal(catalog.tools.size, 0);
    assert.deepEqual(errors(catalog).map((d) => d.message), [
      `tool 'a': 'env_passthrough' lists "has-dash", "x y", which are not variable names`,
      "tool 'b': 'env_passthrough' must be true, false or a list of variable names, got the integer 3",
    ]);
  });
});

void describe('glob patterns as catalog paths (as MCC tool paths)', () => {
  void test('a pattern loads every YAML file it matches, ** recursively; a pattern that matches nothing warns', async () => {
    const dir = await writeFiles({
      'cat/a.yaml': 'groups: [a]\ntools:\n  - {name: one, exec: echo}\n',
      'cat/deep/b.yml': 'groups: [b]\ntools:\n  - {name: two, exec: echo}\n',
      'cat/notes.txt': 'not a catalog',
    });
    const flat = await loadCatalog([join(dir, 'cat', '*.yaml')], { env: {} });
    assert.deepEqual([...flat.tools.keys()], ['a.one']);
    const deep = await loadCatalog([join(dir, 'cat', '**', '*.{yaml,yml}')], { env: {} });
    assert.deepEqual([...deep.tools.keys()].sort(), ['a.one', 'b.two']);
    assert.deepEqual(deep.diagnostics, []);
    const none = await loadCatalog([join(dir, 'nothing', '*.yaml')], { env: {} });
    assert.equal(none.tools.size, 0);
    assert.match(none.diagnostics[0].message, /pattern matches no/);
    assert.equal(none.diagnostics[0].severity, 'warning');
  });
});

void describe('direct tool names', () => {
  void test("two keys that would share an MCP tool name ('.' becomes '__') are a load error naming both", async () => {
    const text = 'tools:\n  - {name: b__c, groups: [a], exec: echo}\n  - {name: c, groups: [a__b], exec: echo}\n  - {name: ok, groups: [a], exec: echo}\n';
    const { catalog, file } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['a.b__c', 'a.ok']);
    const e = only(errors(catalog), /MCP tool/);
    assert.equal(e.line, lineOf(text, 'groups: [a__b]'));
    assert.match(e.message, new RegExp(`'a\\.b__c' \\(${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2\\) and 'a__b\\.c' would both be the MCP tool 'a__b__c'`));
  });

  void test("a key that would shadow one of the server's own tools, or is too long, is not loaded", async () => {
    const long = 'x'.repeat(120);
    const text = `tools:\n  - {name: search, groups: [], exec: echo}\n  - {name: ${long}, groups: [grp, more], exec: echo}\n`;
    const { catalog } = await loadText(text);
    assert.equal(catalog.tools.size, 0);
    assert.match(only(errors(catalog), /server's own tool/).message, /'search'/);
    assert.match(only(errors(catalog), /too long/).message, /at most 128/);
  });
});
