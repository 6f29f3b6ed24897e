// Who may run which tool. First match wins, as in the original MCC.
import type { ToolDef } from './catalog/types';
import type { Principal } from './identity';

export function canAccess(p: Principal, tool: ToolDef): boolean {
  if (tool.groups.includes('public')) return true;
  if (p.groups.includes('admin')) return true;
  if (tool.groups.some((g) => p.groups.includes(g))) return true;
  return p.grants.includes(tool.key);
}

export function accessibleTools(p: Principal, tools: Iterable<ToolDef>): ToolDef[] {
  const out: ToolDef[] = [];
  for (const t of tools) if (canAccess(p, t)) out.push(t);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
