// Who may run which tool. First match wins, as in the original MCC.
import type { ToolDef } from './catalog/types';
import type { Principal } from './identity';

/**
 * Whether a caller's group grants a tool group. A caller group ending in
 * `.*` is a pattern read as a regular expression would be: `ops.*` grants
 * every group whose name starts with `ops` (`ops`, `ops-east`, `ops_db`), and
 * `.*` alone every group, except `admin`: a pattern never grants the tools of
 * the admin group (`a.*` is not meant to reach them). Anything else matches
 * only itself.
 */
export function groupMatches(callerGroup: string, toolGroup: string): boolean {
  if (!isPattern(callerGroup)) return callerGroup === toolGroup;
  return toolGroup !== 'admin' && toolGroup.startsWith(callerGroup.slice(0, -2));
}

export function canAccess(p: Principal, tool: ToolDef): boolean {
  if (tool.groups.includes('public')) return true;
  // Full access takes the admin group itself, never a pattern that happens to match it.
  if (p.groups.includes('admin')) return true;
  // A tool of the admin group is never granted by a pattern, whatever its other groups.
  const mine = tool.groups.includes('admin') ? p.groups.filter((g) => !isPattern(g)) : p.groups;
  if (tool.groups.some((g) => mine.some((m) => groupMatches(m, g)))) return true;
  return p.grants.includes(tool.key);
}

function isPattern(callerGroup: string): boolean {
  return callerGroup.endsWith('.*');
}

export function accessibleTools(p: Principal, tools: Iterable<ToolDef>): ToolDef[] {
  const out: ToolDef[] = [];
  for (const t of tools) if (canAccess(p, t)) out.push(t);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
