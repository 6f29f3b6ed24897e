// What the Tools view shows: groups (the key without its last part), then
// the tools of each group, as plain data for tools-tree.ts.
import { formatParamLines, formatParamList, returnType } from '../core/catalog/signature';
import type { ToolDef } from '../core/catalog/types';
import type { Collapsible } from './sessions-model';
import { describeProfile, profileOf, type ServerSandbox } from '../core/sandbox/profile';

export interface GroupNode {
  kind: 'group';
  id: string;
  label: string;
  description: string;
  tools: ToolDef[];
  collapsible: Collapsible;
}

export interface ToolNode {
  kind: 'tool';
  id: string;
  label: string;
  description: string;
  /** Markdown: rendered, so a description's own headings and lists show as such. */
  tooltip: string;
  contextValue: 'mcc.tool';
  icon: string;
  tool: ToolDef;
}

export type ToolsNode = GroupNode | ToolNode;

export function groupOf(tool: ToolDef): string {
  const cut = tool.key.lastIndexOf('.');
  return cut < 0 ? '' : tool.key.slice(0, cut);
}

export function toolGroups(tools: Iterable<ToolDef>): GroupNode[] {
  const byGroup = new Map<string, ToolDef[]>();
  for (const t of tools) {
    const g = groupOf(t);
    byGroup.set(g, [...(byGroup.get(g) ?? []), t]);
  }
  return [...byGroup]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([g, list]) => ({
      kind: 'group' as const,
      id: `g:${g}`,
      label: g === '' ? '(no group)' : g,
      description: `${list.length} ${list.length === 1 ? 'tool' : 'tools'}`,
      tools: list.sort((a, b) => a.name.localeCompare(b.name)),
      collapsible: 'expanded' as const,
    }));
}

/** `roots`: the workspace folders, which the default sandbox profile shows besides the catalog's folder. */
export function toolNodes(group: GroupNode, sandbox: ServerSandbox = 'off', roots: readonly string[] = []): ToolNode[] {
  return group.tools.map((t) => ({
    kind: 'tool' as const,
    id: `t:${t.key}`,
    label: t.name,
    description: sandboxMark(t, sandbox) + firstLine(t.description),
    tooltip: toolTooltip(t, sandbox, roots),
    contextValue: 'mcc.tool' as const,
    icon: t.kind === 'fn' ? 'symbol-method' : 'terminal',
    tool: t,
  }));
}

/**
 * A tool's hover as Markdown: the signature as code (the line an agent sees
 * in `search`, without its `##`), the params as a list, then the catalog's
 * description as the author wrote it (Markdown), and the example as code.
 */
export function toolTooltip(tool: ToolDef, sandbox: ServerSandbox = 'off', roots: readonly string[] = []): string {
  const parts = [fence(`${tool.key} ${formatParamList(tool)} -> ${returnType(tool)}`)];
  const boxed = sandboxLine(tool, sandbox, roots);
  if (boxed) parts.push(boxed);
  const params = formatParamLines(tool);
  if (params.length) parts.push(params.join('\n'));
  const desc = tool.description.trim();
  if (desc) parts.push(desc);
  const example = tool.example?.trim();
  if (example) parts.push(`Example:\n${fence(example)}`);
  return parts.join('\n\n');
}

/** The tool's sandbox in words, when it has one (the server's setting applies to tools that say nothing). */
export function sandboxLine(tool: ToolDef, sandbox: ServerSandbox, roots: readonly string[] = []): string | undefined {
  const p = profileOf(tool, sandbox, roots);
  return p ? `Runs in a ${describeProfile(p)}` : undefined;
}

function sandboxMark(tool: ToolDef, sandbox: ServerSandbox): string {
  return profileOf(tool, sandbox) ? '[sandbox] ' : '';
}

/** A code block whose fence no line of the text can close. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const f = '`'.repeat(longest + 1);
  return `${f}text\n${text}\n${f}`;
}

/** The params a caller supplies (overrides are hidden from everyone). */
export function callerParams(tool: ToolDef): ToolDef['params'] {
  return tool.params.filter((p) => !p.hasOverride);
}

function firstLine(s: string): string {
  const line = s.split('\n')[0]?.trim() ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
