// Call-time templates for exec commands and transforms: Jinja-style via
// nunjucks, where an undefined variable is an error, never an empty string.
import type nunjucks from 'nunjucks';
import { nunjucksLib } from '../lazy-libs';
import { quoteFilterValue } from './quote';
import { missingVariables, simpleTemplate } from './variables';

export class TemplateError extends Error {}

let env: nunjucks.Environment | undefined;

// Built on first use (nunjucks loads lazily, see lazy-libs.ts).
function environment(): nunjucks.Environment {
  if (env) return env;
  const made = new (nunjucksLib().Environment)(null, { autoescape: false, throwOnUndefined: true, trimBlocks: false });
  made.addFilter('quote', (v: unknown) => {
    if (v === undefined) throw new TemplateError('template quotes a variable the call did not provide');
    return quoteFilterValue(v);
  });
  // `tojson`, as in Jinja, for passing structured params to a command.
  made.addFilter('tojson', (v: unknown) => JSON.stringify(v));
  return (env = made);
}

const compiled = new Map<string, nunjucks.Template>();

function compile(template: string): nunjucks.Template {
  let t = compiled.get(template);
  if (!t) {
    t = new (nunjucksLib().Template)(template, environment(), undefined, true);
    if (compiled.size > 500) compiled.clear();
    compiled.set(template, t);
  }
  return t;
}

/** Renders a template with the validated params; throws TemplateError with a readable reason. */
export function renderTemplate(template: string, params: Record<string, unknown>): string {
  try {
    return compile(template).render(params);
  } catch (e) {
    const message = cleanNunjucksMessage(e);
    if (!/did not provide/.test(message)) throw new TemplateError(message);
    // nunjucks does not say which variable; the parse tree does.
    const missing = missingVariables(template, params);
    if (missing.length === 0) throw new TemplateError(message);
    const names = missing.map((m) => `'${m}'`).join(', ');
    throw new TemplateError(`template uses ${names}, which the call did not provide (no value, and no default in the catalog)`);
  }
}

const UNDEFINED_MESSAGE = 'template uses a variable the call did not provide';

/** Parses a template without rendering it; returns an error message or undefined. */
export function checkTemplate(template: string): string | undefined {
  // A template of the simple shape parses; only its filters can be wrong.
  // Compiling it waits for its first call (compiling cost more than the
  // rest of loading a tool).
  const simple = simpleTemplate(template);
  if (simple && simple.filters.every((f) => FILTER_NAMES.has(f))) return undefined;
  return compileProblem(template);
}

// The environment's filters, nunjucks' own (3.2) and ours, known without
// loading nunjucks (loading a catalog of simple templates needs it no more).
// A filter missing here is only checked the slow way, by compiling; a test
// holds this list to the environment's, so none here is missing there.
export const FILTER_NAMES: ReadonlySet<string> = new Set([
  'abs', 'batch', 'capitalize', 'center', 'd', 'default', 'dictsort', 'dump', 'e', 'escape', 'first', 'float', 'forceescape', 'groupby', 'indent', 'int', 'join', 'last', 'length',
  'list', 'lower', 'nl2br', 'random', 'reject', 'rejectattr', 'replace', 'reverse', 'round', 'safe', 'select', 'selectattr', 'slice', 'sort', 'string', 'striptags', 'sum', 'title', 'trim',
  'truncate', 'upper', 'urlencode', 'urlize', 'wordcount', 'quote', 'tojson',
]);

/** The filter names the real environment has (for the test of FILTER_NAMES). */
export function environmentFilterNames(): string[] {
  return Object.keys((environment() as unknown as { filters: Record<string, unknown> }).filters);
}

/** What compiling the template says: an error message, or undefined. */
export function compileProblem(template: string): string | undefined {
  try {
    compile(template);
    return undefined;
  } catch (e) {
    return cleanNunjucksMessage(e);
  }
}

function cleanNunjucksMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  // nunjucks' parser crashes with a TypeError on some unclosed tags; say what is wrong instead.
  if (/TypeError|Cannot read properties/.test(raw)) return 'the template does not parse: look for an unclosed {{ … }} or {% … %}';
  // nunjucks prefixes "(unknown path)" and a caret line; keep the reason.
  const lines = raw.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('(unknown path)'));
  const msg = lines.join(' ').replace(/^Template render error:\s*/i, '');
  const undef = /attempted to output null or undefined value/i.test(msg);
  return undef ? `${UNDEFINED_MESSAGE} (${msg})` : msg;
}
