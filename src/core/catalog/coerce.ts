// Type coercion of parameter values, shared by call validation and by the
// loader's checks of `default` / `override`. Lossless only: "3" is an int,
// "3.5" is not; numbers pass as strings, booleans never silently become text.
import type { ParamType } from './types';
import { isPlainObject } from '../json/json-value';

export type Coerced = { ok: true; value: unknown } | { ok: false; expected: string };

const INT_TEXT = /^[+-]?\d+$/;
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export const TYPE_DESCRIPTION: Record<ParamType, string> = {
  str: 'a string',
  int: 'an integer',
  float: 'a number',
  bool: 'true or false',
  list: 'a list (JSON array)',
  dict: 'an object (JSON object)',
};

export function coerceValue(type: ParamType, v: unknown): Coerced {
  const fail: Coerced = { ok: false, expected: TYPE_DESCRIPTION[type] };
  switch (type) {
    case 'str':
      if (typeof v === 'string') return { ok: true, value: v };
      if (typeof v === 'number' && Number.isFinite(v)) return { ok: true, value: String(v) };
      return fail;
    case 'int': {
      if (typeof v === 'number') return Number.isSafeInteger(v) ? { ok: true, value: v } : fail;
      if (typeof v === 'string' && INT_TEXT.test(v.trim())) {
        const n = Number(v.trim());
        return Number.isSafeInteger(n) ? { ok: true, value: n } : fail;
      }
      return fail;
    }
    case 'float': {
      if (typeof v === 'number') return Number.isFinite(v) ? { ok: true, value: v } : fail;
      if (typeof v === 'string' && FLOAT_TEXT.test(v.trim())) {
        const n = Number(v.trim());
        return Number.isFinite(n) ? { ok: true, value: n } : fail;
      }
      return fail;
    }
    case 'bool':
      if (typeof v === 'boolean') return { ok: true, value: v };
      if (typeof v === 'string') {
        const t = v.trim().toLowerCase();
        if (t === 'true') return { ok: true, value: true };
        if (t === 'false') return { ok: true, value: false };
      }
      return fail;
    case 'list':
      if (Array.isArray(v)) return { ok: true, value: v };
      // Some clients send structured arguments as JSON text.
      if (typeof v === 'string') {
        const parsed = parseJson(v);
        if (Array.isArray(parsed)) return { ok: true, value: parsed };
      }
      return fail;
    case 'dict':
      if (isPlainObject(v)) return { ok: true, value: v };
      if (typeof v === 'string') {
        const parsed = parseJson(v);
        if (isPlainObject(parsed)) return { ok: true, value: parsed };
      }
      return fail;
  }
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('[') && !t.startsWith('{')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** A short description of what a value is, for error messages. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') {
    const shown = v.length > 40 ? `${v.slice(0, 40)}…` : v;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof v === 'number') return Number.isInteger(v) ? `the integer ${v}` : `the number ${v}`;
  if (typeof v === 'boolean') return `${v}`;
  if (typeof v === 'object') return 'an object';
  return typeof v;
}
