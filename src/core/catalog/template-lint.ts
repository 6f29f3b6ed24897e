// Finds `{{ p }}` outputs of caller-controlled text params that are not
// shell-quoted. Quoting is the catalog author's job; this only warns. A
// template of the simple shape is read once (template/variables.ts); the
// regular expressions below read any other, attribute access included.
import type { ParamSpec } from './types';
import { simpleTemplate, type SimpleOutput } from '../template/variables';

const OUTPUT = /\{\{-?([\s\S]*?)-?\}\}/g;
// A variable (with attribute or index access) followed by filters.
const SIMPLE = /^\s*([A-Za-z_][A-Za-z0-9_]*)((?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*|\s*\[[^\]]*\])*)\s*((?:\|\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:\([^)]*\))?\s*)*)$/;
// Filters whose output is already safe in a command: quoted text or a number.
const SAFE_FILTERS = new Set(['quote', 'tojson', 'length', 'count', 'int', 'float', 'abs', 'round']);

/** Names of str/list/dict params output without `| quote` (or another safe filter), in order of appearance. */
export function unquotedParams(template: string, params: readonly ParamSpec[]): string[] {
  const found: string[] = [];
  let risky: Set<string> | undefined;
  for (const out of simpleTemplate(template)?.outputs ?? outputsOf(template)) {
    risky ??= new Set(params.filter((p) => !p.hasOverride && p.type !== 'int' && p.type !== 'float' && p.type !== 'bool').map((p) => p.name));
    if (!risky.has(out.name) || found.includes(out.name)) continue;
    if (!out.filters.some((f) => SAFE_FILTERS.has(f))) found.push(out.name);
  }
  return found;
}

/** The outputs of any template that are a variable (with attribute or index access) and filters. */
function outputsOf(template: string): SimpleOutput[] {
  const outputs: SimpleOutput[] = [];
  for (const m of template.matchAll(OUTPUT)) {
    const expr = SIMPLE.exec(m[1] ?? '');
    if (expr) outputs.push({ name: expr[1] ?? '', filters: Array.from((expr[3] ?? '').matchAll(/\|\s*([A-Za-z_][A-Za-z0-9_]*)/g), (f) => f[1] ?? '') });
  }
  return outputs;
}
