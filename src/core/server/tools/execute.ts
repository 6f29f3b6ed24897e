import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toMcpResult, type McpSessionContext } from '../session-context';
import { runCatalogCall } from '../elicitation';

export function registerExecute(server: McpServer, ctx: McpSessionContext): RegisteredTool {
  return server.registerTool(
    'execute',
    {
      title: 'Run a catalog tool',
      description:
        'Runs the catalog tool `key` (as listed by search or describe_tools) with `params`, an object of its parameters. ' +
        'Parameters are checked first: unknown, missing or mistyped ones are an error naming the parameter. On success ' +
        'the answer is the tool\'s output; on failure it carries the return code, stdout and stderr.',
      inputSchema: {
        key: z.string().describe('Tool key, e.g. ops.grep'),
        params: z
          .union([z.record(z.unknown()), z.string()])
          .optional()
          .describe('The tool\'s parameters as an object, e.g. {"pattern": "TODO"}'),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    // Asks the user for missing required params first when the client can show a form (elicitation.ts).
    async ({ key, params }, extra) => toMcpResult(await runCatalogCall(server, ctx, key, params, extra)),
  );
}
