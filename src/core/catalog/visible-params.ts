// The params a caller sees and gives: every declared param but the hidden
// override ones, whose values the catalog fixes (and which may be secret).
import type { ParamSpec, ToolDef } from './types';

export function visibleParams(tool: ToolDef): ParamSpec[] {
  return tool.params.filter((p) => !p.hasOverride);
}

/** Whether a form field can hold the param (lists and objects cannot). */
export function isScalar(p: ParamSpec): boolean {
  return p.type !== 'list' && p.type !== 'dict';
}
