import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DotenvError, parseDotenv, readDotenvFile } from '../../../src/core/runner/dotenv';
import { FIXTURES } from './helpers';

describe('parseDotenv', () => {
  test('comments, blank lines, export prefix and whitespace', () => {
    const env = parseDotenv('# a comment\n\n  export A=1\nB = two  \n   # indented comment\nC=\n');
    assert.deepEqual(env, { A: '1', B: 'two', C: '' });
  });

  test('inline comments end unquoted values, but # inside a word stays', () => {
    assert.deepEqual(parseDotenv('A=value # note\nB=x#y\nC=#z'), { A: 'value', B: 'x#y', C: '#z' });
  });

  test('single quotes are literal; double quotes take escapes', () => {
    const env = parseDotenv(`S='a\\nb $X # not a comment'\nD="line1\\nline2\\t\\"q\\" \\\\ end" # comment\n`);
    assert.equal(env.S, 'a\\nb $X # not a comment');
    assert.equal(env.D, 'line1\nline2\t"q" \\ end');
  });

  test('quoted values may span lines', () => {
    const env = parseDotenv('K="first\nsecond"\nNEXT=1\nP=\'x\ny\'');
    assert.deepEqual(env, { K: 'first\nsecond', NEXT: '1', P: 'x\ny' });
  });

  test('CRLF files and a BOM parse like LF files', () => {
    assert.deepEqual(parseDotenv('\uFEFFA=1\r\nB="2"\r\n'), { A: '1', B: '2' });
  });

  test('a later assignment wins', () => {
    assert.deepEqual(parseDotenv('A=1\nA=2'), { A: '2' });
  });

  test('a line without = is an error naming the source and line', () => {
    assert.throws(
      () => parseDotenv('A=1\n\njust words\n', 'ops.env'),
      (e: unknown) => e instanceof DotenvError && e.line === 3 && /^ops\.env:3: expected KEY=VALUE/.test(e.message),
    );
  });

  test('a bad name, an unterminated quote and junk after a quote are errors with lines', () => {
    assert.throws(() => parseDotenv('1A=x', 'f'), /f:1: invalid variable name "1A"/);
    assert.throws(() => parseDotenv('A=1\nB="open\nC=2', 'f'), /f:2: unterminated double quote/);
    assert.throws(() => parseDotenv("A='x' y", 'f'), /f:1: unexpected text after the closing quote/);
  });

  test('readDotenvFile reads a fixture and names a missing file', () => {
    const env = readDotenvFile(join(FIXTURES, 'sample.env'));
    assert.equal(env.FROM_FILE, 'file');
    assert.equal(env.QUOTED, 'hello world');
    assert.throws(() => readDotenvFile(join(FIXTURES, 'nope.env')), /nope\.env: cannot read env_file: file not found/);
  });
});

describe('${VAR} expansion', () => {
  test('expands from earlier keys, then the lookup; defaults; quotes and escapes keep $ literal', () => {
    const env = parseDotenv(
      [
        'HOST=db.internal',
        'URL=postgres://${HOST}:${PORT:-5432}/app',
        'QUOTED="${HOST} and \\${HOST}"',
        "LITERAL='${HOST}'",
        'FROM_ENV=${HOME_DIR}/x',
        'MISSING=[${NOPE}]',
      ].join('\n'),
      'test.env',
      (name) => (name === 'HOME_DIR' ? '/home/me' : undefined),
    );
    assert.equal(env.URL, 'postgres://db.internal:5432/app');
    assert.equal(env.QUOTED, 'db.internal and ${HOST}');
    assert.equal(env.LITERAL, '${HOST}');
    assert.equal(env.FROM_ENV, '/home/me/x');
    assert.equal(env.MISSING, '[]');
  });
});
