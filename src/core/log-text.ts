// Text that goes into a log line from outside (keys, params, client names,
// session keys): control characters are written as escapes, so a value can
// never start a new line, move the cursor or pass for a line of its own.

// C0 (incl. newline, CR, tab, ESC), DEL, C1 (incl. NEL), and the Unicode
// line and paragraph separators, which some viewers treat as line breaks.
// eslint-disable-next-line no-control-regex -- matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** At most `max` characters (a trailing … marks a cut), never splitting a surrogate pair. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** A value as one escaped line of JSON, cut at `max` characters; never throws. */
export function jsonForLog(value: unknown, max: number): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch (e) {
    text = `[not loggable: ${e instanceof Error ? e.message : String(e)}]`;
  }
  return escapeControl(boundText(text, max));
}

/** A log field from outside: bounded, then escaped. */
export function logField(text: string, max = 200): string {
  return escapeControl(boundText(text, max));
}
