import * as z from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { toMcpResult, type ConnectionContext } from '../connection-context';

// Built once: a zod schema costs a few kilobytes, which every MCP session would repeat.
const DESCRIBE_INPUT = z.object({ groups: z.array(z.string()).optional().describe('Only tools in all of these groups') });

export function registerDescribeTools(server: McpServer, ctx: ConnectionContext): RegisteredTool {
  return server.registerTool(
    'describe_tools',
    {
      title: 'List catalog tools',
      description:
        'Lists every catalog tool you may run, as "## key", its sandbox when it runs in one ("Sandbox: default" or ' +
        '"Sandbox: tool"), and its description. With `groups`, only tools that are in all ' +
        'of the given groups. Use search for the full signatures.',
      inputSchema: DESCRIBE_INPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ groups }, extra) =>
      toMcpResult(await ctx.runtime.calls.describeTools(ctx.principal, ctx.bucketKeyFor(extra), groups, { clientName: ctx.clientName() })),
  );
}
