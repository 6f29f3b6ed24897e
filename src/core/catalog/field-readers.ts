// Typed readers for catalog fields: each reports a clear, located problem
// and returns undefined instead of guessing.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { CatalogDiagnostic } from './types';
import type { Locator, YamlPath } from './yaml-file';
import { describeValue } from './coerce';
import { isPlainObject } from '../json/json-value';

export class Reporter {
  readonly diagnostics: CatalogDiagnostic[] = [];
  errors = 0;
  /** Prefix naming the entry, e.g. "tool 'grep': ". */
  subject = '';

  constructor(
    readonly file: string,
    readonly at: Locator,
  ) {}

  error(message: string, path: YamlPath = []): void {
    this.errors++;
    this.diagnostics.push({ severity: 'error', file: this.file, line: this.at.line(path), message: this.subject + message });
  }

  warn(message: string, path: YamlPath = []): void {
    this.diagnostics.push({ severity: 'warning', file: this.file, line: this.at.line(path), message: this.subject + message });
  }
}

function fieldName(path: YamlPath): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

export function readString(r: Reporter, v: unknown, path: YamlPath): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  r.error(`'${fieldName(path)}' must be a string, got ${describeValue(v)}`, path);
  return undefined;
}

/** Text fields (description, example) also take numbers and booleans as written. */
export function readText(r: Reporter, v: unknown, path: YamlPath): string | undefined {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return readString(r, v, path);
}

export function readBool(r: Reporter, v: unknown, path: YamlPath): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  r.error(`'${fieldName(path)}' must be true or false, got ${describeValue(v)}`, path);
  return undefined;
}

export function readPositive(r: Reporter, v: unknown, path: YamlPath, allowZero = false): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v) && (v > 0 || (allowZero && v === 0))) return v;
  const want = allowZero ? 'a number of 0 or more' : 'a positive number';
  r.error(`'${fieldName(path)}' must be ${want}, got ${describeValue(v)}`, path);
  return undefined;
}

/** A list of strings; a single string counts as a one-element list. */
export function readStringList(r: Reporter, v: unknown, path: YamlPath): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) {
    r.error(`'${fieldName(path)}' must be a list of strings, got ${describeValue(v)}`, path);
    return undefined;
  }
  const out: string[] = [];
  let bad = false;
  v.forEach((item, i) => {
    if (typeof item === 'string') out.push(item);
    else {
      bad = true;
      r.error(`'${fieldName(path)}' entries must be strings, got ${describeValue(item)}`, [...path, i]);
    }
  });
  return bad ? undefined : out;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** env_passthrough: true, false, or a list of server variable names (a single name counts as a list). */
export function readPassthrough(r: Reporter, v: unknown, path: YamlPath): boolean | string[] | undefined {
  if (v === undefined || v === null || typeof v === 'boolean') return v ?? undefined;
  if (typeof v !== 'string' && !Array.isArray(v)) {
    r.error(`'${fieldName(path)}' must be true, false or a list of variable names, got ${describeValue(v)}`, path);
    return undefined;
  }
  const names = readStringList(r, v, path);
  if (!names) return undefined;
  const bad = names.filter((n) => !VARIABLE_NAME.test(n));
  if (bad.length > 0) {
    r.error(`'${fieldName(path)}' lists ${bad.map((n) => JSON.stringify(n)).join(', ')}, which ${bad.length === 1 ? 'is not a variable name' : 'are not variable names'}`, path);
    return undefined;
  }
  const never = names.filter((n) => n === 'MCC_TOKEN' || n.toUpperCase().startsWith('MCC_CTX'));
  if (never.length > 0) r.warn(`'${fieldName(path)}' lists ${never.join(', ')}, which no tool ever receives from the server (ignored)`, path);
  return [...new Set(names)];
}

/** Environment maps: scalar values become strings, null becomes ''. */
export function readEnvMap(r: Reporter, v: unknown, path: YamlPath): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) {
    r.error(`'${fieldName(path)}' must be a mapping of variable names to values, got ${describeValue(v)}`, path);
    return undefined;
  }
  const out: Record<string, string> = {};
  let bad = false;
  for (const [name, value] of Object.entries(v)) {
    if (name === '' || name.includes('=') || name.includes('\0')) {
      bad = true;
      r.error(`'${fieldName(path)}' has an invalid variable name ${JSON.stringify(name)}`, [...path, name]);
      continue;
    }
    if (name === '__proto__') {
      bad = true;
      r.error(`'${fieldName(path)}' cannot name a variable __proto__: the runtime's objects would drop it`, [...path, name]);
      continue;
    }
    if (value === null || value === undefined) out[name] = '';
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[name] = String(value);
    else {
      bad = true;
      r.error(`'${fieldName(path)}.${name}' must be a string, number or boolean, got ${describeValue(value)}`, [...path, name]);
    }
  }
  return bad ? undefined : out;
}

/** Absolute form of a path written in a catalog file (relative to its folder; `~/` is the home folder). */
export function resolvePath(dir: string, p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? resolve(p) : resolve(dir, p);
}
