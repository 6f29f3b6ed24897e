// The variables a call-time template reads, found in nunjucks' parse tree:
// every name it looks up, less filter and function names and the names the
// template binds itself (loop variables, {% set %}, macro arguments, `loop`).
import { nunjucksLib } from '../lazy-libs';

/** The part of a nunjucks parse-tree node read here (its parser API is untyped). */
interface TemplateNode {
  typename: string;
  value?: unknown;
  name?: TemplateNode | TemplateNode[];
  targets?: TemplateNode[];
  args?: { children?: TemplateNode[] };
  findAll(type: unknown): TemplateNode[];
}

interface NunjucksInternals {
  parser: { parse(src: string): TemplateNode };
  nodes: Record<'Symbol' | 'FunCall' | 'For' | 'Set' | 'Macro', unknown>;
}

const internals = (): NunjucksInternals => nunjucksLib() as unknown as NunjucksInternals;

/** Names the template reads from its context, each once, in order; [] when it does not parse. */
export function templateVariables(template: string): string[] {
  return simpleTemplateVariables(template) ?? parsedTemplateVariables(template);
}

// Most catalog templates are text with `{{ name }}` or `{{ name | filter }}`
// in it (filters may take literal arguments). Their variables are read here
// without nunjucks' parser, which cost more than the rest of loading a tool;
// anything else (tags, comments, expressions, a name nunjucks reads as a
// literal) is left to the parser. A test compares the two on every shape.
const EXPR = /\{\{([^{}]*)\}\}/g;
const LITERAL = String.raw`(?:"[^"\\]*"|'[^'\\]*'|-?\d+(?:\.\d+)?)`;
const FILTER = String.raw`\|\s*[A-Za-z_]\w*\s*(?:\(\s*(?:${LITERAL}\s*(?:,\s*${LITERAL}\s*)*)?\))?\s*`;
const SIMPLE = new RegExp(String.raw`^\s*([A-Za-z_]\w*)\s*(?:${FILTER})*$`);
const NOT_NAMES = new Set(['true', 'false', 'True', 'False', 'none', 'None', 'null', 'loop', 'not', 'and', 'or', 'in', 'is', 'if', 'else']);

/** The variables of a template of the simple shape, or undefined when the parser must decide. */
export function simpleTemplateVariables(template: string): string[] | undefined {
  const simple = simpleTemplate(template);
  return simple ? [...simple.variables] : undefined;
}

const FILTER_NAME = /\|\s*([A-Za-z_]\w*)/g;

/** One `{{ name | filter | ... }}` of a simple template. */
export interface SimpleOutput {
  readonly name: string;
  readonly filters: readonly string[];
}

export interface SimpleTemplate {
  readonly variables: readonly string[];
  /** Every filter it uses, each once. */
  readonly filters: readonly string[];
  /** Its outputs in order, with their filters (the unquoted-output lint reads these). */
  readonly outputs: readonly SimpleOutput[];
}

// Loading a tool asks three times about the same template (its check, its
// variables, its unquoted outputs); the answers are frozen and shared.
const recent = new Map<string, SimpleTemplate | null>();
const MAX_RECENT = 256;

/** A template of the simple shape: its variables and the filters it uses; undefined for any other. */
export function simpleTemplate(template: string): SimpleTemplate | undefined {
  let known = recent.get(template);
  if (known === undefined) {
    known = readSimpleTemplate(template) ?? null;
    if (recent.size >= MAX_RECENT) recent.delete(recent.keys().next().value as string);
    recent.set(template, known);
  }
  return known ?? undefined;
}

function readSimpleTemplate(template: string): SimpleTemplate | undefined {
  const out: string[] = [];
  const filters = new Set<string>();
  const outputs: SimpleOutput[] = [];
  let rest = '';
  let last = 0;
  for (const m of template.matchAll(EXPR)) {
    rest += template.slice(last, m.index);
    last = m.index + m[0].length;
    const name = SIMPLE.exec(m[1] ?? '')?.[1];
    if (name === undefined || NOT_NAMES.has(name)) return undefined;
    if (!out.includes(name)) out.push(name);
    // Literal arguments hold no '|' outside quotes that matter here: a quoted '|' only adds a name to check.
    const own = Array.from((m[1] ?? '').matchAll(FILTER_NAME), (f) => f[1]);
    for (const f of own) filters.add(f);
    outputs.push(Object.freeze({ name, filters: Object.freeze(own) }));
  }
  rest += template.slice(last);
  // Anything else that nunjucks would read as markup goes to the parser.
  if (/\{\{|\}\}|\{%|%\}|\{#|#\}/.test(rest) || template.includes('{{{') || template.includes('}}}')) return undefined;
  return Object.freeze({ variables: Object.freeze(out), filters: Object.freeze([...filters]), outputs: Object.freeze(outputs) });
}

/** What nunjucks' parse tree says (the general case). */
export function parsedTemplateVariables(template: string): string[] {
  let root: TemplateNode;
  try {
    root = internals().parser.parse(template);
  } catch {
    return [];
  }
  const { nodes } = internals();
  const calls = new Set<TemplateNode>();
  for (const f of root.findAll(nodes.FunCall)) if (f.name && !Array.isArray(f.name)) calls.add(f.name);
  const bound = new Set<string>(['loop']);
  const bind = (n: TemplateNode | TemplateNode[] | undefined): void => {
    for (const x of Array.isArray(n) ? n : n ? [n] : []) {
      if (x.typename === 'Symbol' && typeof x.value === 'string') bound.add(x.value);
      else if (x.typename === 'Array' || x.typename === 'NodeList') bind((x as unknown as { children: TemplateNode[] }).children);
    }
  };
  for (const f of root.findAll(nodes.For)) bind(f.name);
  for (const s of root.findAll(nodes.Set)) bind(s.targets);
  for (const m of root.findAll(nodes.Macro)) bind(m.args?.children);
  const out: string[] = [];
  for (const s of root.findAll(nodes.Symbol)) {
    if (calls.has(s) || typeof s.value !== 'string' || bound.has(s.value) || out.includes(s.value)) continue;
    out.push(s.value);
  }
  return out;
}

/** The template's variables that `params` does not hold. */
export function missingVariables(template: string, params: Record<string, unknown>): string[] {
  return templateVariables(template).filter((v) => params[v] === undefined || params[v] === null);
}
