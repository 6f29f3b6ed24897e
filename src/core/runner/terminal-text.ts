// Turns what a program wrote to a terminal into clean text for the caller:
// escape sequences (colours, cursor moves, titles) removed, CRLF as LF, and
// carriage returns / backspaces applied the way a terminal would show the
// line, so a progress bar leaves only its final state.

// OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC (ESC P/X/^/_ ... ST), CSI
// (ESC [ or 8-bit 0x9b, params, final byte), then any other two- or
// three-byte ESC sequence (charset selection, keypad modes, save cursor).
const ESCAPES = new RegExp(
  [
    '\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?',
    '\\u001b[PX^_][^\\u001b]*(?:\\u001b\\\\)?',
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]',
    '\\u001b[ -/]*[0-~]',
  ].join('|'),
  'g',
);
// Controls with no meaning in plain text (tab and newline stay).
// eslint-disable-next-line no-control-regex
const STRAY_CONTROLS = /[\u0000-\u0007\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f]/g;

export function stripEscapes(text: string): string {
  return text.replace(ESCAPES, '');
}

export function cleanTerminalText(raw: string): string {
  const text = stripEscapes(raw).replace(/\r+\n/g, '\n').split('\u001b').join('');
  return text
    .split('\n')
    .map((line) => (/[\r\b]/.test(line) ? overwrite(line) : line))
    .join('\n')
    .replace(STRAY_CONTROLS, '');
}

// \r returns to column 0 and later text overwrites; \b steps back one.
function overwrite(line: string): string {
  const cells: string[] = [];
  let col = 0;
  for (const ch of line) {
    if (ch === '\r') col = 0;
    else if (ch === '\b') col = Math.max(0, col - 1);
    else cells[col++] = ch;
  }
  return cells.join('');
}
