import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { audited, type McpSessionContext } from '../session-context';
import { ok } from '../../tool-result';

export function registerDescribeTools(server: McpServer, ctx: McpSessionContext): RegisteredTool {
  return server.registerTool(
    'describe_tools',
    {
      title: 'List catalog tools',
      description:
        'Lists every catalog tool you may run, as "## key" and its description. With `groups`, only tools that are in all ' +
        'of the given groups. Use search for the full signatures.',
      inputSchema: { groups: z.array(z.string()).optional().describe('Only tools in all of these groups') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ groups }, extra) =>
      audited(ctx, extra, 'describe_tools', groups ? { groups } : {}, () => {
        const wanted = groups ?? [];
        const tools = ctx.runtime.accessibleTools(ctx.principal).filter((t) => wanted.every((g) => t.groups.includes(g)));
        if (tools.length === 0) return ok(`No tools you can run${wanted.length ? ` in groups ${wanted.join(', ')}` : ''}.`);
        return ok(tools.map((t) => `## ${t.key}\n${t.description}`.trimEnd()).join('\n\n'));
      }),
  );
}
