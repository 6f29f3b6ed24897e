// How deep call params may nest. Deeper params are refused before anything
// runs: no tool needs them, and every later step that walks them (JSON for
// stdin or a runner, templates, the audit line) could run out of stack.
import { setOwn } from '../json/json-value';

export const MAX_PARAMS_DEPTH = 64;

/**
 * The top-level parameter whose value nests deeper than `max` levels (the
 * params object itself is level 1), or undefined. Iterative, so that it
 * cannot itself run out of stack on the params it is there to refuse.
 */
export function tooDeepParam(params: Record<string, unknown>, max = MAX_PARAMS_DEPTH): string | undefined {
  for (const [name, value] of Object.entries(params)) {
    const stack: Array<[unknown, number]> = [[value, 2]];
    while (stack.length > 0) {
      const [v, depth] = stack.pop() ?? [null, 0];
      if (v === null || typeof v !== 'object') continue;
      if (depth > max) return name;
      for (const child of Object.values(v)) stack.push([child, depth + 1]);
    }
  }
  return undefined;
}

/** A copy cut at `max` levels (deeper values become "…"), for an audit line of refused params. */
export function clipDepth(value: unknown, max: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (max <= 0) return '…';
  if (Array.isArray(value)) return value.map((v) => clipDepth(v, max - 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, clipDepth(v, max - 1));
  return out;
}
