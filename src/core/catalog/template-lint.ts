// Finds `{{ p }}` outputs of caller-controlled text params that are not
// shell-quoted. Quoting is the catalog author's job; this only warns.
import type { ParamSpec } from './types';

const OUTPUT = /\{\{-?([\s\S]*?)-?\}\}/g;
// A variable (with attribute or index access) followed by filters.
const SIMPLE = /^\s*([A-Za-z_][A-Za-z0-9_]*)((?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*|\s*\[[^\]]*\])*)\s*((?:\|\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:\([^)]*\))?\s*)*)$/;
// Filters whose output is already safe in a command: quoted text or a number.
const SAFE_FILTERS = new Set(['quote', 'tojson', 'length', 'count', 'int', 'float', 'abs', 'round']);

/** Names of str/list/dict params output without `| quote` (or another safe filter), in order of appearance. */
export function unquotedParams(template: string, params: readonly ParamSpec[]): string[] {
  const risky = new Map(params.filter((p) => !p.hasOverride && p.type !== 'int' && p.type !== 'float' && p.type !== 'bool').map((p) => [p.name, p]));
  const found: string[] = [];
  for (const m of template.matchAll(OUTPUT)) {
    const expr = SIMPLE.exec(m[1] ?? '');
    if (!expr) continue;
    const name = expr[1] ?? '';
    if (!risky.has(name) || found.includes(name)) continue;
    const filters = [...(expr[3] ?? '').matchAll(/\|\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((f) => f[1] ?? '');
    if (!filters.some((f) => SAFE_FILTERS.has(f))) found.push(name);
  }
  return found;
}
