import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { renderTemplate, checkTemplate, TemplateError } from '../../../src/core/template/render';
import { shellQuote } from '../../../src/core/template/quote';

function sh(script: string): Buffer {
  const r = spawnSync('/bin/sh', ['-c', script], { env: { LC_ALL: 'C' } });
  assert.equal(r.status, 0, r.stderr.toString());
  return r.stdout;
}

void describe('shellQuote (shlex.quote)', () => {
  void test('empty, safe and unsafe strings', () => {
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('abc-DEF_1@%+=:,./'), 'abc-DEF_1@%+=:,./');
    assert.equal(shellQuote('a b'), "'a b'");
    assert.equal(shellQuote("it's"), `'it'"'"'s'`);
    assert.equal(shellQuote('$(x)'), "'$(x)'");
    assert.equal(shellQuote('é'), "'é'");
  });
});

void describe('renderTemplate', () => {
  void test('a list param is quoted per element, each arrives as one argument', () => {
    const cmd = renderTemplate("printf '%s\\0' {{ items | quote }}", { items: ['a b', "it's", '', '-n', '$(id)'] });
    assert.equal(cmd, `printf '%s\\0' 'a b' 'it'"'"'s' '' -n '$(id)'`);
    assert.deepEqual(sh(cmd).toString().split('\0'), ['a b', "it's", '', '-n', '$(id)', '']);
  });

  void test('[] renders as nothing', () => {
    assert.equal(renderTemplate('x{{ items | quote }}y', { items: [] }), 'xy');
    assert.equal(sh(renderTemplate("printf '[%s]' {{ items | quote }}", { items: [] })).toString(), '[]');
  });

  void test('numbers and booleans are quoted as text', () => {
    assert.equal(renderTemplate('{{ n | quote }} {{ b | quote }} {{ l | quote }}', { n: 3, b: true, l: [1, 2.5] }), '3 true 1 2.5');
  });

  void test('NUL is rejected with a clear error', () => {
    assert.throws(
      () => renderTemplate('echo {{ v | quote }}', { v: 'a\0b' }),
      (e: unknown) => e instanceof TemplateError && /NUL/.test(e.message),
    );
    assert.throws(() => renderTemplate('echo {{ v | quote }}', { v: ['ok', 'a\0b'] }), /NUL/);
  });

  void test('a variable the call did not provide is an error, never an empty string', () => {
    assert.throws(() => renderTemplate('echo {{ missing }}', {}), TemplateError);
    assert.throws(() => renderTemplate('echo {{ missing | quote }}', {}), /did not provide/);
  });

  void test('{% if %} for optional flags; an absent flag is false', () => {
    const t = 'grep {% if i %}-i {% endif %}-- {{ p | quote }}';
    assert.equal(renderTemplate(t, { p: 'x y', i: true }), "grep -i -- 'x y'");
    assert.equal(renderTemplate(t, { p: 'x' }), 'grep -- x');
  });

  void test('tojson passes structured values', () => {
    assert.equal(renderTemplate('{{ d | tojson | quote }}', { d: { a: [1, 'b'] } }), `'{"a":[1,"b"]}'`);
  });

  void test('no HTML escaping', () => {
    assert.equal(renderTemplate('{{ v }}', { v: '<a>&"' }), '<a>&"');
  });

  void test('checkTemplate reports parse errors without rendering', () => {
    assert.equal(checkTemplate('echo {{ x | quote }}'), undefined);
    assert.equal(typeof checkTemplate('echo {{ x'), 'string');
    assert.equal(typeof checkTemplate('{% if %}'), 'string');
  });
});

test('an unclosed tag is reported as such, not as a parser crash', () => {
  const msg = checkTemplate('echo {{ x | quote');
  assert.ok(msg);
  assert.match(msg, /unclosed \{\{ … \}\} or \{% … %\}/);
  assert.doesNotMatch(msg, /TypeError/);
});

void describe('undefined template variables are named', () => {
  void test('the error names every variable the call left without a value', () => {
    assert.throws(() => renderTemplate('ping -c {{ count }} {{ host | quote }}', {}), (e: unknown) => e instanceof TemplateError && /uses 'count', 'host', which the call did not provide/.test(e.message));
    assert.throws(() => renderTemplate('echo {{ a }} {{ b | quote }}', { a: 1 }), /uses 'b', which the call did not provide/);
  });

  void test('names bound by the template itself, filters and functions are not variables', () => {
    assert.throws(
      () => renderTemplate('{% set x = 1 %}{% for f in files %}{{ f | quote }}{{ loop.index }}{% endfor %}{{ x }}{{ range(2) | join(",") }}{{ n }}', { files: ['a'] }),
      (e: unknown) => e instanceof Error && /uses 'n', which/.test(e.message) && !/'f'|'x'|'loop'|'range'|'quote'|'join'/.test(e.message),
    );
  });

  void test('an unprovided flag in {% if %} is false, as before', () => {
    assert.equal(renderTemplate('ls{% if all %} -a{% endif %}', {}), 'ls');
  });
});
