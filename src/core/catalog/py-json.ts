// JSON as Python's json.dumps writes it with its defaults, which is what tools
// written for MCC read: ", " and ": " separators, every non-ASCII character
// escaped (ensure_ascii), floats as Python's repr (3.0, 1e-05, 1e+16).
import type { ParamSpec } from './types';

/** Python's repr() of a float (the shortest round-trip digits, Python's layout). */
export function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const sign = n < 0 ? '-' : '';
  // toExponential() without digits gives the shortest digits that round-trip, as Python does.
  const [mantissa, expText] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const frac = digits.slice(1);
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${frac ? `.${frac}` : ''}e${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}.${frac || '0'}`;
}

function pyNumber(n: number, asFloat: boolean): string {
  // What Python's json.loads makes of the number as JSON writes it: an int
  // when written without '.' or exponent (whole and below 1e21), else a float.
  if (asFloat || !Number.isInteger(n) || Math.abs(n) >= 1e21) return pyFloatRepr(n);
  return String(n);
}

function pyString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    // UTF-16 code units: astral characters come out as surrogate pairs, as in Python.
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** json.dumps(value) with Python's default settings. */
export function pyJsonDumps(value: unknown, asFloat = false): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return pyNumber(value, asFloat);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map((v) => pyJsonDumps(v)).join(', ')}]`;
  if (typeof value === 'object') return pyObject(value as Record<string, unknown>);
  // Functions and symbols are not JSON; json.dumps would refuse them, JSON.stringify drops them.
  return 'null';
}

function pyObject(obj: Record<string, unknown>, isFloat: (key: string) => boolean = () => false): string {
  const entries = Object.entries(obj).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${pyString(k)}: ${pyJsonDumps(v, isFloat(k))}`).join(', ')}}`;
}

/** A tool's validated params as MCC sends them on stdin: json.dumps(kwargs), `float` params as floats. */
export function paramsJson(params: Record<string, unknown>, specs: readonly ParamSpec[]): string {
  const floats = new Set(specs.filter((p) => p.type === 'float').map((p) => p.name));
  return pyObject(params, (k) => floats.has(k));
}
