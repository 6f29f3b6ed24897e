// POSIX shell quoting, exactly as Python's shlex.quote (the catalog format's
// definition of the `quote` filter). Small and exact, so hand-written.

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export class QuoteError extends Error {}

export function shellQuote(value: string): string {
  if (value.includes('\0')) {
    throw new QuoteError('cannot quote a value containing a NUL byte: shell arguments cannot carry NUL');
  }
  if (value === '') return "''";
  if (SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/** The `quote` filter: scalars are stringified; a list quotes each element and joins with spaces. */
export function quoteFilterValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => shellQuote(scalarText(v))).join(' ');
  return shellQuote(scalarText(value));
}

function scalarText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}
