// The answers of search and describe_tools over the tools a caller may run.
import { formatSignature } from '../catalog/signature';
import type { ToolDef } from '../catalog/types';
import { ok, type ToolCallResult } from '../tool-result';
import { searchTools } from './tool-search';

export function searchAnswer(tools: ToolDef[], query: string, minScore?: number): ToolCallResult {
  const hits = searchTools(tools, query, minScore);
  if (hits.length === 0) return ok(`No tools match '${query}'. describe_tools lists every tool you can run.`);
  return ok(hits.map((h) => `[${h.score.toFixed(2)}]\n${formatSignature(h.tool)}`).join('\n\n'));
}

export function describeAnswer(tools: ToolDef[], groups: string[] = []): ToolCallResult {
  const wanted = tools.filter((t) => groups.every((g) => t.groups.includes(g)));
  if (wanted.length === 0) return ok(`No tools you can run${groups.length ? ` in groups ${groups.join(', ')}` : ''}.`);
  return ok(wanted.map((t) => `## ${t.key}\n${t.description}`.trimEnd()).join('\n\n'));
}
