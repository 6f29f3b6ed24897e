// Dotenv files (env_file): KEY=VALUE lines with comments, blank lines,
// `export ` prefixes, single quotes (literal) and double quotes (with
// escapes). Quoted values may span lines. Malformed lines are errors with
// the line number, never silently skipped: a lost variable is hard to debug.
import { readFileSync } from 'node:fs';

export class DotenvError extends Error {
  override readonly name = 'DotenvError';
  constructor(
    readonly source: string,
    /** 1-based; 0 when the file as a whole is the problem. */
    readonly line: number,
    reason: string,
  ) {
    super(line > 0 ? `${source}:${line}: ${reason}` : `${source}: ${reason}`);
  }
}

const KEY = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const DOUBLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\', $: '$' };

/** Looks up a variable for `${NAME}` expansion when the file has not set it. */
export type EnvLookup = (name: string) => string | undefined;

/**
 * Parses dotenv text; later assignments of a key win. `source` names the file
 * in errors. As in python-dotenv, `${NAME}` and `${NAME:-default}` in unquoted
 * and double-quoted values expand from keys set earlier in the file, then
 * from `lookup`; an unknown name expands to the default or nothing. Single
 * quotes, and `\$` inside double quotes, keep a `$` literal.
 */
export function parseDotenv(text: string, source = 'env file', lookup: EnvLookup = () => undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const expand = (v: string): string =>
    v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, dflt: string | undefined) => {
      const known = Object.prototype.hasOwnProperty.call(out, name) ? out[name] : lookup(name);
      return known !== undefined && known !== '' ? known : (dflt ?? known ?? '');
    });
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const trimmed = lines[i].trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const body = trimmed.replace(/^export\s+/, '');
    const eq = body.indexOf('=');
    if (eq < 0) throw new DotenvError(source, lineNo, `expected KEY=VALUE, got ${JSON.stringify(clip(trimmed))}`);
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) throw new DotenvError(source, lineNo, `invalid variable name ${JSON.stringify(clip(key))}`);
    const rest = body.slice(eq + 1).replace(/^[ \t]+/, '');
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      const parsed = readQuoted(lines, i, lines[i].indexOf(rest), quote, source, quote === '"' ? expand : undefined);
      out[key] = parsed.value;
      i = parsed.endLine;
    } else {
      out[key] = expand(unquoted(rest));
    }
  }
  return out;
}

/** Reads and parses a dotenv file; errors name the file (and line). */
export function readDotenvFile(path: string, lookup?: EnvLookup): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a folder' : (e as Error).message;
    throw new DotenvError(path, 0, `cannot read env_file: ${why}`);
  }
  return parseDotenv(text, path, lookup);
}

// An unquoted value ends at a ` #` comment; surrounding blanks are dropped.
function unquoted(rest: string): string {
  const hash = rest.search(/\s#/);
  return (hash >= 0 ? rest.slice(0, hash) : rest).trim();
}

function readQuoted(
  lines: string[],
  startLine: number,
  startCol: number,
  quote: string,
  source: string,
  expand?: (v: string) => string,
): { value: string; endLine: number } {
  // Plain runs are expanded; text produced by an escape (\$ included) is not.
  let value = '';
  let run = '';
  const flush = (): void => {
    value += expand ? expand(run) : run;
    run = '';
  };
  let line = startLine;
  let col = startCol + 1;
  for (;;) {
    const text = lines[line];
    while (col < text.length) {
      const ch = text[col];
      if (ch === quote) {
        const after = text.slice(col + 1).trim();
        if (after !== '' && !after.startsWith('#')) {
          throw new DotenvError(source, line + 1, `unexpected text after the closing quote: ${JSON.stringify(clip(after))}`);
        }
        flush();
        return { value, endLine: line };
      }
      if (quote === '"' && ch === '\\' && col + 1 < text.length) {
        const next = text[col + 1];
        flush();
        value += DOUBLE_ESCAPES[next] ?? `\\${next}`;
        col += 2;
        continue;
      }
      run += ch;
      col++;
    }
    line++;
    if (line >= lines.length) {
      throw new DotenvError(source, startLine + 1, `unterminated ${quote === '"' ? 'double' : 'single'} quote`);
    }
    run += '\n';
    col = 0;
  }
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
