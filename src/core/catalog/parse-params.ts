// The `params:` (alias `parameters:`) list of a tool entry.
import type { ParamSpec, ParamType } from './types';
import { coerceValue, describeValue } from './coerce';
import { isPlainObject } from '../json/json-value';
import { readBool, readText, type Reporter } from './field-readers';
import { paramNameProblem } from './naming-rules';
import type { YamlPath } from './yaml-file';

export const PARAM_TYPES: readonly ParamType[] = ['str', 'int', 'float', 'bool', 'list', 'dict'];
const PARAM_FIELDS = new Set(['name', 'type', 'required', 'default', 'description', 'example', 'override']);

function isParamType(t: string): t is ParamType {
  return (PARAM_TYPES as readonly string[]).includes(t);
}

/** Parses the list; reports problems on `r` and returns only the params that are sound. */
export function parseParams(r: Reporter, value: unknown, path: YamlPath): ParamSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    r.error(`'${String(path[0])}' must be a list of parameters, got ${describeValue(value)}`, path);
    return [];
  }
  const out: ParamSpec[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry, i) => {
    const p = parseParam(r, entry, [...path, i]);
    if (!p) return;
    const first = seen.get(p.name);
    if (first !== undefined) {
      r.error(`parameter '${p.name}' is declared twice (first at line ${r.at.line([...path, first])})`, [...path, i, 'name']);
      return;
    }
    seen.set(p.name, i);
    out.push(p);
  });
  return out;
}

function parseParam(r: Reporter, entry: unknown, path: YamlPath): ParamSpec | undefined {
  // `- pattern` is shorthand for a required str param.
  if (typeof entry === 'string') entry = { name: entry };
  if (!isPlainObject(entry)) {
    r.error(`each parameter must be a mapping with at least 'name', got ${describeValue(entry)}`, path);
    return undefined;
  }
  const before = r.errors;
  const rawName = entry.name;
  if (typeof rawName !== 'string' || rawName === '') {
    r.error("parameter has no 'name'", rawName === undefined ? path : [...path, 'name']);
    return undefined;
  }
  const nameProblem = paramNameProblem(rawName);
  if (nameProblem) r.error(nameProblem, [...path, 'name']);
  for (const k of Object.keys(entry)) {
    if (!PARAM_FIELDS.has(k) && !k.startsWith('x-')) {
      r.warn(`parameter '${rawName}' has an unknown field '${k}' (ignored)`, [...path, k]);
    }
  }

  let type: ParamType = 'str';
  const rawType = entry.type;
  if (rawType !== undefined && rawType !== null) {
    if (typeof rawType === 'string' && isParamType(rawType)) type = rawType;
    else {
      r.error(`parameter '${rawName}' has unknown type ${JSON.stringify(rawType)}; use one of ${PARAM_TYPES.join(', ')}`, [...path, 'type']);
    }
  }

  const hasDefault = Object.prototype.hasOwnProperty.call(entry, 'default');
  const hasOverride = Object.prototype.hasOwnProperty.call(entry, 'override');
  const spec: ParamSpec = { name: rawName, type, required: !hasDefault, hasDefault, hasOverride };

  const required = readBool(r, entry.required, [...path, 'required']);
  if (required !== undefined) spec.required = required;
  if (hasOverride) spec.required = false;
  if (required === true && hasDefault) {
    r.warn(`parameter '${rawName}' is required, so its default is never used`, [...path, 'required']);
  }

  if (hasDefault) spec.default = checkedValue(r, rawName, type, 'default', entry.default, [...path, 'default']);
  if (hasOverride) spec.override = checkedValue(r, rawName, type, 'override', entry.override, [...path, 'override']);
  const description = readText(r, entry.description, [...path, 'description']);
  if (description !== undefined) spec.description = description;
  if (entry.example !== undefined) spec.example = entry.example;

  return r.errors === before ? spec : undefined;
}

/** A default/override must fit the type (null means "no value" and always fits). */
function checkedValue(r: Reporter, name: string, type: ParamType, field: string, v: unknown, path: YamlPath): unknown {
  if (v === null) return null;
  const c = coerceValue(type, v);
  if (c.ok) return c.value;
  r.error(`parameter '${name}': ${field} must be ${c.expected} (type ${type}), got ${describeValue(v)}`, path);
  return undefined;
}
