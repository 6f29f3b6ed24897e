import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { formatParamList, formatSignature } from '../../../src/core/catalog/signature';
import { pyRepr } from '../../../src/core/catalog/py-repr';
import type { FnTool } from '../../../src/core/catalog/types';
import { execTool, param } from './tooldef';

void describe('formatSignature', () => {
  void test('the grep example from the issue', () => {
    const t = execTool('grep', [param('pattern', { description: 'Extended regular expression', example: 'err.*' }), param('path', { default: '.', description: 'File or folder' })], {
      groups: ['ops'],
      description: 'Searches files for a regular expression.',
      example: "grep(pattern='TODO')",
    });
    assert.equal(
      formatSignature(t),
      [
        "## ops.grep (pattern:str, path:str='.') -> str",
        "- pattern: Extended regular expression (example: 'err.*')",
        '- path: File or folder',
        'Searches files for a regular expression.',
        "Example: grep(pattern='TODO')",
      ].join('\n'),
    );
  });

  void test('defaults in Python repr; optional without default is =None; overrides never shown', () => {
    const t = execTool('t', [
      param('b', { type: 'bool', default: true }),
      param('f', { type: 'float', default: 2 }),
      param('i', { type: 'int', default: -3 }),
      param('n', { default: null }),
      param('o', { required: false }),
      param('l', { type: 'list', default: ['a', 1, false] }),
      param('d', { type: 'dict', default: { k: "it's" } }),
      param('secret', { override: 'hunter2', description: 'never shown' }),
    ]);
    const sig = formatSignature(t);
    assert.equal(sig.split('\n')[0], `## public.t (b:bool=True, f:float=2.0, i:int=-3, n:str=None, o:str=None, l:list=['a', 1, False], d:dict={'k': "it's"}) -> str`);
    assert.doesNotMatch(sig, /secret|hunter2|never shown/);
    assert.equal(formatParamList(t).includes('secret'), false);
  });

  void test('return type: declared, else str for exec and Any for fn; no params gives ()', () => {
    assert.equal(formatSignature(execTool('a', [], { returns: 'int' })), '## public.a () -> int');
    const fn: FnTool = { ...execTool('f'), kind: 'fn', language: 'js', target: './f.mjs:f', takesContext: true } as unknown as FnTool;
    assert.equal(formatSignature(fn), '## public.f () -> Any');
  });

  void test('multi-line param descriptions stay on one line', () => {
    const t = execTool('t', [param('p', { description: 'first\n  second' })]);
    assert.equal(formatSignature(t).split('\n')[1], '- p: first second');
  });
});

void describe('pyRepr', () => {
  void test('matches Python repr for the usual values', () => {
    assert.equal(pyRepr('a'), "'a'");
    assert.equal(pyRepr("it's"), `"it's"`);
    assert.equal(pyRepr(`it's "x"`), `'it\\'s "x"'`);
    assert.equal(pyRepr('a\nb\\'), "'a\\nb\\\\'");
    assert.equal(pyRepr('\u0001'), "'\\x01'");
    assert.equal(pyRepr(null), 'None');
    assert.equal(pyRepr(1.5), '1.5');
    assert.equal(pyRepr(3, true), '3.0');
    assert.equal(pyRepr({ a: [null, true] }), "{'a': [None, True]}");
  });
});
