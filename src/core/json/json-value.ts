// What a JSON value is, by one rule for every place that takes one (session
// values, write-back, params, what a JavaScript tool returns): exactly what
// JSON can carry and JSON.parse gives back, so the type a caller stored is
// the type every later reader gets back. Own keys named `__proto__` are
// plain data here, as JSON.parse makes them.

const MAX_DEPTH = 512;

/** An object JSON.parse could have made: not null, not an array, of the plain Object prototype (or none). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Sets `key` on an object being built as an own data property: `out[key] =`
 * with the key `__proto__` would set the prototype and drop the value.
 */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Why `value` cannot round-trip through JSON unchanged, naming the place
 * (`where`, e.g. `value.items[2]`), or undefined when it can.
 */
export function jsonProblem(value: unknown, where = 'value'): string | undefined {
  return walk(value, where, new Set<object>(), 0);
}

function walk(v: unknown, where: string, ancestors: Set<object>, depth: number): string | undefined {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(v) ? undefined : `${where} is ${String(v)}, which JSON cannot represent`;
    case 'undefined':
      return `${where} is undefined, which JSON cannot represent (use null)`;
    case 'function':
      return `${where} is a function, which JSON cannot represent`;
    case 'bigint':
      return `${where} is a BigInt (bigint), which JSON cannot represent (use a number or a string)`;
    case 'symbol':
      return `${where} is a symbol, which JSON cannot represent`;
  }
  if (v === null) return undefined;
  const obj = v as object;
  if (depth >= MAX_DEPTH) return `${where} is nested more than ${MAX_DEPTH} levels deep`;
  if (ancestors.has(obj)) return `${where} refers back to itself (a cycle), which JSON cannot represent`;
  ancestors.add(obj);
  try {
    if (Array.isArray(obj)) {
      const arr = obj as unknown[];
      for (let i = 0; i < arr.length; i++) {
        if (!(i in arr)) return `${where}[${i}] is an empty slot, which JSON cannot represent`;
        const p = walk(arr[i], `${where}[${i}]`, ancestors, depth + 1);
        if (p) return p;
      }
      return undefined;
    }
    if (!isPlainObject(obj)) {
      const kind = (Object.getPrototypeOf(obj) as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'non-plain object';
      return `${where} is a ${kind}, not a plain JSON object`;
    }
    const rec = obj;
    for (const key of Object.keys(rec)) {
      const p = walk(rec[key], `${where}${propertyPath(key)}`, ancestors, depth + 1);
      if (p) return p;
    }
    return undefined;
  } finally {
    ancestors.delete(obj);
  }
}

function propertyPath(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** UTF-8 size of a string, the unit of every size limit. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Deep equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}
