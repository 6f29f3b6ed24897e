import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { CappedOutput, formatBytes, truncationMarker } from '../../../src/core/runner/capped-output';

describe('CappedOutput', () => {
  test('keeps everything under the cap', () => {
    const c = new CappedOutput(10);
    c.push(Buffer.from('hello'));
    c.push(Buffer.from('world'));
    assert.equal(c.text(), 'helloworld');
    assert.equal(c.truncated, false);
  });

  test('keeps the first maxBytes and counts the rest', () => {
    const c = new CappedOutput(4);
    assert.equal(c.push(Buffer.from('abcdef'))?.toString(), 'abcd');
    assert.equal(c.push(Buffer.from('xyz')), undefined);
    assert.equal(c.text(), 'abcd');
    assert.equal(c.cutBytes, 5);
  });

  test('a character split by the cap is dropped, not turned into garbage', () => {
    const c = new CappedOutput(4);
    c.push(Buffer.from('abc€')); // € is 3 bytes: only its first fits
    assert.equal(c.text(), 'abc');
  });

  test('the marker says how much was cut', () => {
    assert.equal(truncationMarker(51275776), '\n[mcc: output truncated, 48.9 MiB cut]');
    assert.equal(formatBytes(100), '100 bytes');
    assert.equal(formatBytes(2048), '2.0 KiB');
  });
});
