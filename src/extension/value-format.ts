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

export type ParsedValue = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The edit box takes JSON, strictly: text is stored only when it parses,
 * so a typo of a literal (`tru`, `nul`, `1O00`) is refused instead of
 * silently becoming a string. A string is entered quoted ("10.0.0.5"); the
 * error message shows how, with the user's own text.
 */
export function parseValueInput(text: string): ParsedValue {
  const t = text.trim();
  if (t === '') return { ok: false, error: `Enter a JSON value: ${JSON_EXAMPLES}.` };
  try {
    return { ok: true, value: JSON.parse(t) as unknown };
  } catch (e) {
    const why = `Not valid JSON (${(e as Error).message.replace(/\.$/, '')}).`;
    if (/^'.*'$/s.test(t)) return { ok: false, error: `${why} JSON strings use double quotes: ${JSON.stringify(t.slice(1, -1))}` };
    if (!/^["[{]/.test(t)) return { ok: false, error: `${why} To store it as text, put it in double quotes: ${JSON.stringify(t)}` };
    return { ok: false, error: why };
  }
}

const JSON_EXAMPLES = '"text" (strings in double quotes), 42, true, null, [1, 2] or {"k": "v"}';

/** The edit box's prompt. */
export const VALUE_PROMPT = `A JSON value: ${JSON_EXAMPLES}.`;

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
