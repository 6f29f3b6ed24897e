// Call-time validation of a tool's parameters: before anything runs, the
// caller's input is checked against the declared params, coerced where
// lossless, completed with defaults and the hidden override values.
import type { ToolDef } from './types';
import { coerceValue, describeValue } from './coerce';
import { isPlainObject } from '../json/json-value';

export type ParamsResult = { ok: true; params: Record<string, unknown> } | { ok: false; error: string };

export function validateParams(tool: ToolDef, input: unknown): ParamsResult {
  if (input === undefined || input === null) input = {};
  if (!isPlainObject(input)) {
    return { ok: false, error: `parameters must be an object of name: value pairs, got ${describeValue(input)}` };
  }
  const visible = tool.params.filter((p) => !p.hasOverride);
  const accepted = visible.map((p) => p.name);
  const problems: string[] = [];

  for (const name of Object.keys(input)) {
    if (!accepted.includes(name)) {
      const list = accepted.length > 0 ? `accepted: ${accepted.join(', ')}` : 'this tool takes no parameters';
      problems.push(`unknown parameter '${name}' (${list})`);
    }
  }

  const params: Record<string, unknown> = {};
  for (const spec of tool.params) {
    if (spec.hasOverride) {
      params[spec.name] = copy(spec.override);
      continue;
    }
    const given = Object.prototype.hasOwnProperty.call(input, spec.name) ? input[spec.name] : undefined;
    // null from a caller means "left out" (clients send it for optional params).
    if (given === undefined || given === null) {
      if (spec.required) problems.push(`missing required parameter '${spec.name}' (${spec.type})`);
      else if (spec.hasDefault) params[spec.name] = copy(spec.default);
      continue;
    }
    const c = coerceValue(spec.type, given);
    if (c.ok) params[spec.name] = c.value;
    else problems.push(`parameter '${spec.name}' must be ${c.expected} (${spec.type}), got ${describeValue(given)}`);
  }

  if (problems.length > 0) return { ok: false, error: problems.join('; ') };
  return { ok: true, params };
}

// Defaults and overrides are shared by every call; a tool must not be able to change them.
function copy(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? structuredClone(v) : v;
}
