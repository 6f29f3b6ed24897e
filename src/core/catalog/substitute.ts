// Load-time `${VAR}` / `$VAR` substitution from the server's environment.
// Template regions ({{ }}, {% %}, {# #}) are left alone: they belong to the
// call-time renderer. An unset variable stays as written, like Python's
// os.path.expandvars, so a shell command's own `$x` survives when unset.

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
const TEMPLATE_REGION = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/g;

// MCC_CTX* are injected per call; substituting them at load would let the
// server's environment forge the caller's identity inside a command.
// MCC_TOKEN is the owner's bearer token, which no tool may ever see.
function substitutable(name: string): boolean {
  return !name.startsWith('MCC_CTX') && name !== 'MCC_TOKEN';
}

/** The names a string refers to with `${VAR}` or `$VAR` (outside template regions or not). */
export function referencedVariables(text: string): string[] {
  return [...text.matchAll(VAR)].map((m) => m[1] ?? m[2] ?? '').filter((n) => n !== '');
}

function substitutePlain(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(VAR, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    if (!substitutable(name)) return whole;
    const value = env[name];
    return value === undefined ? whole : value;
  });
}

/** Substitutes variables in one string, outside template regions. */
export function substituteString(text: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!text.includes('$')) return text;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TEMPLATE_REGION)) {
    const at = m.index;
    out += substitutePlain(text.slice(last, at), env) + m[0];
    last = at + m[0].length;
  }
  return out + substitutePlain(text.slice(last), env);
}

/**
 * Substitutes in every string value of a parsed YAML/JSON tree (keys
 * untouched). Nothing is changed in place: a mapping or list with a
 * substitution below it is copied, and the rest is shared (most of a
 * catalog has no `$`, and copying it all was a tenth of its load).
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  if (typeof value === 'string') return substituteString(value, env);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const s = substituteEnv(v, env);
      if (s !== v) (out ??= value.slice())[i] = s;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const k of Object.keys(record)) {
      const v = record[k];
      const s = substituteEnv(v, env);
      if (s !== v) (out ??= { ...record })[k] = s;
    }
    return out ?? value;
  }
  return value;
}
