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
 * The edit box takes JSON. Text that is not JSON but reads as a bare word
 * (no quotes, brackets or braces) is taken as a string, so typing
 * 10.0.0.5 stores "10.0.0.5" while 1000 stores the number.
 */
export function parseValueInput(text: string): ParsedValue {
  const t = text.trim();
  if (t === '') return { ok: false, error: 'Enter a JSON value, e.g. "text", 42, true, [1, 2] or {"a": 1}.' };
  try {
    return { ok: true, value: JSON.parse(t) as unknown };
  } catch (e) {
    if (!/^["'[{]/.test(t)) return { ok: true, value: t };
    return { ok: false, error: `Not valid JSON: ${(e as Error).message}` };
  }
}

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

export function shortKey(sessionKey: string): string {
  return sessionKey.length <= 10 ? sessionKey : `${sessionKey.slice(0, 8)}…`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
