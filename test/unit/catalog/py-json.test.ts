// JSON as Python's json.dumps writes it, checked against a real python3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { paramsJson, pyFloatRepr, pyJsonDumps } from '../../../src/core/catalog/py-json';
import { pyRepr } from '../../../src/core/catalog/py-repr';

/** What python3 prints for each JSON text: json.dumps(json.loads(text)), floats kept as floats. */
function python(texts: string[], floatsAsFloat = false): string[] {
  const script = floatsAsFloat
    ? 'import json,sys\nfor l in sys.stdin.read().split("\\n")[:-1]: print(json.dumps(json.loads(l, parse_int=float)))'
    : 'import json,sys\nfor l in sys.stdin.read().split("\\n")[:-1]: print(json.dumps(json.loads(l)))';
  return execFileSync('python3', ['-c', script], { input: texts.map((t) => `${t}\n`).join(''), encoding: 'utf8' }).split('\n').slice(0, -1);
}

test('floats read as Python repr: shortest digits, .0 for whole numbers, exponents from 1e16 and below 1e-4', () => {
  const samples = [3, 0.1, 1e16, 1.5e16, 1e-5, 0.0001, 123456789.123, 1e22, -2.5e-7, 100, 1e15, 12345678901234568, 5e-324, 1.7976931348623157e308, -0];
  const ours = samples.map((n) => pyFloatRepr(n));
  assert.deepEqual(ours, python(samples.map((n) => (Object.is(n, -0) ? '-0.0' : String(n))), true));
  assert.equal(pyFloatRepr(3), '3.0');
  assert.equal(pyFloatRepr(1e-5), '1e-05');
});

test('property: json.dumps of any JSON value is what python3 writes (separators, escapes, numbers)', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const values = fc.sample(json, 150);
  // Integral numbers go to Python as ints, the rest as floats, as json.loads reads them.
  const texts = values.map((v) => JSON.stringify(v));
  assert.deepEqual(values.map((v) => pyJsonDumps(v)), python(texts));
});

test('non-ASCII is escaped, astral characters as surrogate pairs, like ensure_ascii', () => {
  assert.equal(pyJsonDumps({ a: 'é☃😀\x7f"\\\n', b: [1, 2.5, null, true], c: {} }), '{"a": "\\u00e9\\u2603\\ud83d\\ude00\\u007f\\"\\\\\\n", "b": [1, 2.5, null, true], "c": {}}');
});

test("stdin params: float params as floats, everything else as json.dumps(kwargs)", () => {
  const specs = [
    { name: 'n', type: 'int' as const, required: true, hasDefault: false, hasOverride: false },
    { name: 'r', type: 'float' as const, required: true, hasDefault: false, hasOverride: false },
  ];
  assert.equal(paramsJson({ n: 3, r: 3, s: 'x' }, specs), '{"n": 3, "r": 3.0, "s": "x"}');
});

test('signatures use the same float repr', () => {
  assert.equal(pyRepr(1e16, true), '1e+16');
  assert.equal(pyRepr(0.5), '0.5');
  assert.equal(pyRepr(2, true), '2.0');
  assert.equal(pyRepr(10 ** 20), '100000000000000000000');
});
