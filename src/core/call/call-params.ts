// A call's params as the caller sent them, read once: an object, or a JSON
// string of one (some agents send that); too-deep nesting refused before
// anything walks it; and the params as an audit line may show them.
import type { ToolDef } from '../catalog/types';
import { isPlainObject } from '../json/json-value';
import { clipDepth, MAX_PARAMS_DEPTH, tooDeepParam } from './params-depth';

/** The params object, or the refusal to answer. */
export function parseParamsArgument(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // fall through to the error below
    }
    return "'params' must be an object of parameter values (or a JSON string of one).";
  }
  if (isPlainObject(raw)) return raw;
  return "'params' must be an object of parameter values.";
}

/** Why params nest too deep for `key`, with what the audit line may show of them; undefined when they do not. */
export function tooDeep(key: string, params: Record<string, unknown>): { refused: string; shown: Record<string, unknown> } | undefined {
  const deep = tooDeepParam(params);
  if (deep === undefined) return undefined;
  return {
    refused: `Invalid parameters for '${key}': '${deep}' is nested deeper than ${MAX_PARAMS_DEPTH} levels; nothing was run.`,
    shown: clipDepth(params, 4) as Record<string, unknown>,
  };
}

/** The params with every override value (which may be a secret) written as ***. */
export function maskOverrides(tool: ToolDef, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const spec of tool.params) if (spec.hasOverride && spec.name in out) out[spec.name] = '***';
  return out;
}
