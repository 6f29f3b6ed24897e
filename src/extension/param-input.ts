// Turns what the user typed in Run Tool…'s input boxes into a param value.
// Strings are taken as typed; other types are read as JSON when they parse,
// and otherwise passed on as text for the core's validation to explain.
import type { ParamSpec } from '../core/catalog/types';

export type ParamInput = { ok: true; value: unknown; omit?: boolean } | { ok: false; error: string };

export function parseParamInput(spec: ParamSpec, text: string): ParamInput {
  if (text === '' && !spec.required) return { ok: true, value: undefined, omit: true };
  if (text === '' && spec.type !== 'str') return { ok: false, error: `'${spec.name}' is required.` };
  if (spec.type === 'str') return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    if (spec.type === 'list' || spec.type === 'dict') {
      return { ok: false, error: `'${spec.name}' is a ${spec.type}: enter JSON, e.g. ${spec.type === 'list' ? '["a", "b"]' : '{"k": "v"}'}.` };
    }
    return { ok: true, value: text };
  }
}

export function paramPrompt(spec: ParamSpec): string {
  const parts = [`${spec.name}: ${spec.type}`];
  if (!spec.required) parts.push('optional, empty for the default');
  if (spec.description) parts.push(spec.description);
  return parts.join(' — ');
}

/** The input box's starting text: the default, or nothing. */
export function paramInitialValue(spec: ParamSpec): string {
  if (!spec.hasDefault || spec.default === undefined || spec.default === null) return '';
  return typeof spec.default === 'string' ? spec.default : JSON.stringify(spec.default);
}

export function paramPlaceholder(spec: ParamSpec): string | undefined {
  if (spec.example === undefined) return undefined;
  return `e.g. ${typeof spec.example === 'string' ? spec.example : JSON.stringify(spec.example)}`;
}
