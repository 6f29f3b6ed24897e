import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { validateParams } from '../../../src/core/catalog/params';
import { execTool, param } from './tooldef';

const tool = execTool('t', [
  param('pattern'),
  param('path', { default: '.' }),
  param('n', { type: 'int', default: 3 }),
  param('ratio', { type: 'float', required: false }),
  param('flag', { type: 'bool', default: false }),
  param('items', { type: 'list', required: false }),
  param('opts', { type: 'dict', default: { a: [1] } }),
  param('api_key', { override: 's3cret' }),
]);

function ok(input: unknown): Record<string, unknown> {
  const r = validateParams(tool, input);
  if (!r.ok) throw new Error(r.error);
  return r.params;
}

function err(input: unknown, t = tool): string {
  const r = validateParams(t, input);
  assert.equal(r.ok, false, `expected an error for ${JSON.stringify(input)}`);
  return r.ok ? '' : r.error;
}

void describe('validateParams', () => {
  void test('defaults applied, overrides injected, optional without default left absent', () => {
    assert.deepEqual(ok({ pattern: 'x' }), { pattern: 'x', path: '.', n: 3, flag: false, opts: { a: [1] }, api_key: 's3cret' });
  });

  void test('undefined and null input mean no params', () => {
    const t = execTool('u', [param('a', { default: 1, type: 'int' })]);
    assert.deepEqual(validateParams(t, undefined), { ok: true, params: { a: 1 } });
    assert.deepEqual(validateParams(t, null), { ok: true, params: { a: 1 } });
  });

  void test('input that is not an object is an error', () => {
    for (const bad of ['x', 3, [1], true]) assert.match(err(bad), /parameters must be an object/);
  });

  void test('unknown params name the parameter and list the accepted ones; override and context are unknown', () => {
    const e = err({ pattern: 'x', patern: 'y' });
    assert.match(e, /unknown parameter 'patern'/);
    assert.match(e, /accepted: pattern, path, n, ratio, flag, items, opts\)/);
    assert.doesNotMatch(e, /api_key,|, api_key/);
    assert.match(err({ pattern: 'x', api_key: 'mine' }), /unknown parameter 'api_key'/);
    assert.match(err({ pattern: 'x', context: {} }), /unknown parameter 'context'/);
    assert.match(err({ a: 1 }, execTool('none')), /unknown parameter 'a' \(this tool takes no parameters\)/);
  });

  void test('a missing required param is named', () => {
    assert.match(err({}), /missing required parameter 'pattern' \(str\)/);
    assert.match(err({ pattern: null }), /missing required parameter 'pattern'/);
  });

  void test('several problems are all reported', () => {
    const e = err({ n: 'x', bogus: 1 });
    assert.match(e, /unknown parameter 'bogus'/);
    assert.match(e, /missing required parameter 'pattern'/);
    assert.match(e, /parameter 'n' must be an integer \(int\), got the string "x"/);
  });

  void test('override values cannot be changed by a call', () => {
    const p = ok({ pattern: 'x' });
    (p.opts as { a: number[] }).a.push(2);
    assert.deepEqual(ok({ pattern: 'x' }).opts, { a: [1] }, 'defaults are copied per call');
  });

  void test('null for an optional param means absent (default applies)', () => {
    assert.equal(ok({ pattern: 'x', n: null }).n, 3);
    assert.equal('ratio' in ok({ pattern: 'x', ratio: null }), false);
  });

  void describe('types and coercion', () => {
    const cases: Array<[string, unknown, unknown]> = [
      ['n', 7, 7],
      ['n', '3', 3],
      ['n', ' -12 ', -12],
      ['n', 3.0, 3],
      ['ratio', 0.5, 0.5],
      ['ratio', '2.5', 2.5],
      ['ratio', '1e3', 1000],
      ['ratio', 4, 4],
      ['flag', true, true],
      ['flag', 'false', false],
      ['flag', 'TRUE', true],
      ['items', ['a', 1], ['a', 1]],
      ['items', '["a", "b"]', ['a', 'b']],
      ['opts', { x: 1 }, { x: 1 }],
      ['opts', '{"x": 1}', { x: 1 }],
      ['pattern', 'text', 'text'],
      ['pattern', 8080, '8080'],
      ['pattern', '', ''],
    ];
    for (const [name, given, want] of cases) {
      void test(`${name} accepts ${JSON.stringify(given)}`, () => {
        assert.deepEqual(ok({ pattern: 'p', [name]: given })[name], want);
      });
    }

    const bad: Array<[string, unknown, RegExp]> = [
      ['n', '3.5', /'n' must be an integer \(int\), got the string "3.5"/],
      ['n', 3.5, /'n' must be an integer \(int\), got the number 3.5/],
      ['n', '3abc', /'n' must be an integer/],
      ['n', true, /'n' must be an integer \(int\), got true/],
      ['n', '99999999999999999999', /'n' must be an integer/],
      ['n', '', /'n' must be an integer/],
      ['ratio', 'abc', /'ratio' must be a number \(float\)/],
      ['ratio', 'NaN', /'ratio' must be a number/],
      ['flag', 'yes', /'flag' must be true or false \(bool\), got the string "yes"/],
      ['flag', 1, /'flag' must be true or false \(bool\), got the integer 1/],
      ['items', 'a,b', /'items' must be a list \(JSON array\) \(list\)/],
      ['items', { a: 1 }, /'items' must be a list.*got an object/],
      ['opts', [1], /'opts' must be an object \(JSON object\) \(dict\), got a list/],
      ['opts', '[1]', /'opts' must be an object/],
      ['pattern', true, /'pattern' must be a string \(str\), got true/],
      ['pattern', { a: 1 }, /'pattern' must be a string \(str\), got an object/],
      ['pattern', ['x'], /'pattern' must be a string \(str\), got a list/],
    ];
    for (const [name, given, want] of bad) {
      void test(`${name} rejects ${JSON.stringify(given)}`, () => {
        assert.match(err({ pattern: 'p', [name]: given }), want);
      });
    }
  });
});
