import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cleanTerminalText, stripEscapes } from '../../../src/core/runner/terminal-text';

describe('cleanTerminalText', () => {
  test('removes colours, cursor moves and titles', () => {
    const raw = '\u001b]0;my title\u0007\u001b[1;31mred\u001b[0m \u001b[2K\u001b[10Cplain\u001b(B\u001b=';
    assert.equal(cleanTerminalText(raw), 'red plain');
  });

  test('CRLF becomes LF', () => {
    assert.equal(cleanTerminalText('a\r\nb\r\n'), 'a\nb\n');
  });

  test('a carriage return overwrites the line like a terminal', () => {
    assert.equal(cleanTerminalText('10%\r50%\r100%\ndone\n'), '100%\ndone\n');
    assert.equal(cleanTerminalText('abcdef\rXY\n'), 'XYcdef\n');
  });

  test('backspace steps back, BEL and other controls vanish, tabs stay', () => {
    assert.equal(cleanTerminalText('ab\bc\u0007\tz'), 'ac\tz');
  });

  test('stripEscapes keeps text and line ends untouched', () => {
    assert.equal(stripEscapes('\u001b[32mok\u001b[39m\r\n'), 'ok\r\n');
  });
});
