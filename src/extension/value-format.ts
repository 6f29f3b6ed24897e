// How session values and times read in the sidebar, and how the edit box
// turns what the user typed back into a JSON value.

/** One-line rendering by type: strings quoted, containers summarised. */
export function describeValue(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.length} ${v.length === 1 ? 'item' : 'items'}]`;
  if (isObject(v)) {
    const n = Object.keys(v).length;
    return n === 0 ? '{}' : `{${n} ${n === 1 ? 'key' : 'keys'}}`;
  }
  return truncate(JSON.stringify(v) ?? String(v), 80);
}

export function valueKind(v: unknown): 'string' | 'number' | 'boolean' | 'null' | 'list' | 'object' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (isObject(v)) return 'object';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'string';
}

export function isContainer(v: unknown): v is unknown[] | Record<string, unknown> {
  return (Array.isArray(v) && v.length > 0) || (isObject(v) && Object.keys(v).length > 0);
}

export function prettyJson(v: unknown): string {
  return JSON.stringify(v, null, 2) ?? 'null';
}

/** What the value box will store, and what it says about it before Enter. */
export interface ParsedValue {
  value: unknown;
  /** Shown under the box while typing; a warning never blocks Enter. */
  note?: { message: string; severity: 'info' | 'warning' };
}

/**
 * The value box reads JSON (`"text"`, 42, true, null, [1, 2], {"k": "v"}).
 * Text that is not JSON is not refused: the box says, before Enter, that it
 * will be stored as that text, so a typo of a literal (`tru`) is seen, not
 * silently stored, and a plain word is one keystroke. JSON scalars that are
 * not strings say their type, since `1000` and `"1000"` differ.
 */
export function parseValueInput(text: string): ParsedValue {
  const t = text.trim();
  if (t === '') return { value: '', note: { message: 'Empty: Enter stores the empty text "".', severity: 'info' } };
  let value: unknown;
  try {
    value = JSON.parse(t) as unknown;
  } catch (e) {
    const why = /^['"[{]/.test(t) ? ` (${jsonError(e, t)})` : '';
    return { value: t, note: { message: `Not JSON${why}: Enter stores it as the text ${JSON.stringify(truncate(t, 60))}.`, severity: 'warning' } };
  }
  const kind = valueKind(value);
  if (kind === 'number' || kind === 'boolean' || kind === 'null') {
    return { value, note: { message: `Stored as ${kind === 'null' ? 'null' : `the ${kind} ${t}`}; in double quotes it is text.`, severity: 'info' } };
  }
  return { value };
}

/** A JSON.parse error with its position as line and column, for a person. */
export function jsonError(e: unknown, text: string): string {
  // V8 quotes the whole text in some messages ("Unexpected token '}', "{…}" is not valid JSON"): keep the head.
  const msg = (e instanceof Error ? e.message : String(e)).replace(/, ".*" is not valid JSON$/s, '').replace(/\.$/, '');
  const at = /at position (\d+)/.exec(msg);
  if (!at) return msg;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${msg.replace(/\s*(in JSON )?at position \d+.*$/, '')} at line ${line}, column ${column}`;
}

const JSON_EXAMPLES = '"text", 42, true, null, [1, 2] or {"k": "v"}';

/** The value box's prompt. */
export const VALUE_PROMPT = `A JSON value (${JSON_EXAMPLES}); anything else is stored as text.`;

/** The edit box's starting text for a value: its JSON. */
export function valueToInput(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

/** "in 23h 59m", "in 42s", "expired". */
export function formatExpiresIn(expiresAt: number, now: number): string {
  const ms = expiresAt - now;
  if (ms <= 0) return 'expired';
  return `in ${formatSpan(ms)}`;
}

/** "just now", "5m ago", "3h ago", "2d ago". */
export function formatAgo(at: number, now: number): string {
  const ms = now - at;
  if (ms < 5_000) return 'just now';
  return `${formatSpan(ms)} ago`;
}

export function formatSpan(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${Math.max(1, s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d`;
}

/** Prefixes that carry no information among keys of one kind (the editor's own keys are vscode-<hex>). */
const KNOWN_KEY_PREFIXES = ['vscode-'];

/**
 * A session key as the UI, the terminals and the log show it: the known
 * prefix dropped and 8 characters of the random part kept, so two keys
 * tell apart (`vscode-0123456789abcdef` → `01234567…`). Short keys as they are.
 */
export function shortKey(sessionKey: string): string {
  const prefix = KNOWN_KEY_PREFIXES.find((p) => sessionKey.startsWith(p) && sessionKey.length > p.length);
  const rest = prefix ? sessionKey.slice(prefix.length) : sessionKey;
  return rest.length <= 10 ? rest : `${rest.slice(0, 8)}…`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
