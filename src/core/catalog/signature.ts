// Signatures as search results show them to the LLM:
//   ## ops.grep (pattern:str, path:str='.') -> str
// then one line per parameter, the description and the example.
// Override params are never shown.
import type { ParamSpec, ToolDef } from './types';
import { pyRepr } from './py-repr';
import { visibleParams } from './visible-params';

function paramHead(p: ParamSpec): string {
  const head = `${p.name}:${p.type}`;
  if (p.required) return head;
  // Optional without a default reads as Python's `=None`.
  return `${head}=${pyRepr(p.hasDefault ? p.default : null, p.type === 'float')}`;
}

/** `(pattern:str, path:str='.')` */
export function formatParamList(tool: ToolDef): string {
  return `(${visibleParams(tool).map(paramHead).join(', ')})`;
}

export function returnType(tool: ToolDef): string {
  return tool.returns ?? (tool.kind === 'exec' ? 'str' : 'Any');
}

/** One line per visible param: `- name: description (example: 'x')`. */
export function formatParamLines(tool: ToolDef): string[] {
  return visibleParams(tool).map((p) => {
    let line = `- ${p.name}`;
    const desc = p.description?.trim();
    if (desc) line += `: ${oneLine(desc)}`;
    if (p.example !== undefined) line += ` (example: ${pyRepr(p.example)})`;
    return line;
  });
}

export function formatSignature(tool: ToolDef): string {
  const lines = [`## ${tool.key} ${formatParamList(tool)} -> ${returnType(tool)}`, ...formatParamLines(tool)];
  const desc = tool.description.trim();
  if (desc) lines.push(desc);
  const example = tool.example?.trim();
  if (example) lines.push(`Example: ${example}`);
  return lines.join('\n');
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}
