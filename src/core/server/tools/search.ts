import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, searchTools } from '../../search/tool-search';
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
        "tool's signature, prefixed with its score: the whole part is how many of your words it matched, the fraction how " +
        `strongly. Best ${DEFAULT_SEARCH_LIMIT} hits unless you pass a limit; run one with execute.`,
      inputSchema: {
        query: z.string().describe('Keywords, e.g. "grep files"'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_SEARCH_LIMIT)
          .optional()
          .describe(`Most hits to return (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT})`),
        min_score: z.number().optional().describe('Drop hits scoring below this'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ query, limit, min_score }, extra) =>
      audited(ctx, extra, 'search', { query, ...(limit !== undefined ? { limit } : {}), ...(min_score !== undefined ? { min_score } : {}) }, () => {
        const { hits, total } = searchTools(ctx.runtime.accessibleTools(ctx.principal), query, {
          ...(limit !== undefined ? { limit } : {}),
          ...(min_score !== undefined ? { minScore: min_score } : {}),
        });
        if (hits.length === 0) return ok(`No tools match '${query}'. describe_tools lists every tool you can run.`);
        const body = hits.map((h) => `[${h.score.toFixed(2)}]\n${formatSignature(h.tool)}`).join('\n\n');
        const more = total > hits.length ? `\n\n(${hits.length} of ${total} matching tools; narrow the query or pass a higher limit, up to ${MAX_SEARCH_LIMIT}.)` : '';
        return ok(body + more);
      }),
  );
}
