import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toMcpResult, type McpSessionContext } from '../session-context';

export function registerSearch(server: McpServer, ctx: McpSessionContext): void {
  server.registerTool(
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
    async ({ query, min_score }, extra) =>
      toMcpResult(await ctx.runtime.search(ctx.principal, ctx.sessionKeyFor(extra), query, min_score, { clientName: ctx.clientName() })),
  );
}
