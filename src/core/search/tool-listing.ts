// The answers of search and describe_tools over the tools a caller may run.
import { formatSignature } from '../catalog/signature';
import type { ToolDef } from '../catalog/types';
import { ok, type ToolCallResult } from '../tool-result';
import { MAX_SEARCH_LIMIT, searchTools, type SearchOptions } from './tool-search';

export function searchAnswer(tools: readonly ToolDef[], query: string, opts: SearchOptions = {}): ToolCallResult {
  const { hits, total } = searchTools(tools, query, opts);
  if (hits.length === 0) return ok(`No tools match '${query}'. describe_tools lists every tool you can run.`);
  const body = hits.map((h) => `[${h.score.toFixed(2)}]\n${formatSignature(h.tool)}`).join('\n\n');
  const more = total > hits.length ? `\n\n(${hits.length} of ${total} matching tools; narrow the query or pass a higher limit, up to ${MAX_SEARCH_LIMIT}.)` : '';
  return ok(body + more);
}

export function describeAnswer(tools: readonly ToolDef[], groups: string[] = [], sandboxOf?: (t: ToolDef) => string | undefined): ToolCallResult {
  const wanted = tools.filter((t) => groups.every((g) => t.groups.includes(g)));
  if (wanted.length === 0) return ok(`No tools you can run${groups.length ? ` in groups ${groups.join(', ')}` : ''}.`);
  const sandbox = (t: ToolDef): string => {
    const s = sandboxOf?.(t);
    return s ? `Sandbox: ${s}\n` : '';
  };
  return ok(wanted.map((t) => `## ${t.key}\n${sandbox(t)}${t.description}`.trimEnd()).join('\n\n'));
}
