import * as z from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../search/tool-search';
import { toMcpResult, type ConnectionContext } from '../connection-context';

// Built once: a zod schema costs a few kilobytes, which every MCP session would repeat.
const SEARCH_INPUT = z.object({
  query: z.string().describe('Keywords, e.g. "grep files"'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .optional()
    .describe(`Most hits to return (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT})`),
  min_score: z.number().optional().describe('Drop hits scoring below this'),
});

export function registerSearch(server: McpServer, ctx: ConnectionContext): RegisteredTool {
  return server.registerTool(
    'search',
    {
      title: 'Find catalog tools',
      description:
        'Keyword search over the catalog tools you may run (their key, name, description and parameters). Each hit is the ' +
        "tool's signature, prefixed with its score: the whole part is how many of your words it matched, the fraction how " +
        `strongly. Best ${DEFAULT_SEARCH_LIMIT} hits unless you pass a limit; run one with execute.`,
      inputSchema: SEARCH_INPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, limit, min_score }, extra) =>
      toMcpResult(
        await ctx.runtime.calls.search(
          ctx.principal,
          ctx.bucketKeyFor(extra),
          query,
          { ...(limit !== undefined ? { limit } : {}), ...(min_score !== undefined ? { minScore: min_score } : {}) },
          { clientName: ctx.clientName() },
        ),
      ),
  );
}
