import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { searchTools } from '../../search/tool-search';
import { formatSignature } from '../../catalog/signature';
import { audited, type McpSessionContext } from '../session-context';
import { ok } from '../../tool-result';

export function registerSearch(server: McpServer, ctx: McpSessionContext): RegisteredTool {
  return server.registerTool(
    'search',
    {
      title: 'Find catalog tools',
      description:
        'Keyword search over the catalog tools you may run (their key, name, description and parameters). Each hit is the ' +
        "tool's signature, prefixed with its score; run one with execute.",
      inputSchema: {
        query: z.string().describe('Keywords, e.g. "grep files"'),
        min_score: z.number().optional().describe('Drop hits scoring below this'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ query, min_score }, extra) =>
      audited(ctx, extra, 'search', { query, ...(min_score !== undefined ? { min_score } : {}) }, () => {
        const hits = searchTools(ctx.runtime.accessibleTools(ctx.principal), query, min_score);
        if (hits.length === 0) return ok(`No tools match '${query}'. describe_tools lists every tool you can run.`);
        return ok(hits.map((h) => `[${h.score.toFixed(2)}]\n${formatSignature(h.tool)}`).join('\n\n'));
      }),
  );
}
