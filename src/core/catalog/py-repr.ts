// Python repr() of JSON-like values, so signatures read like MCC's (Python) ones.
import { pyFloatRepr } from './py-json';

export function pyRepr(v: unknown, asFloat = false): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    return asFloat || !Number.isInteger(v) || Math.abs(v) >= 1e21 ? pyFloatRepr(v) : String(v);
  }
  if (typeof v === 'string') return pyStr(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyRepr(x)).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyStr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  }
  if (typeof v === 'bigint') return v.toString();
  return pyStr(typeof v);
}

function pyStr(s: string): string {
  // Python prefers single quotes, and switches to double when that avoids escaping.
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + q;
}
