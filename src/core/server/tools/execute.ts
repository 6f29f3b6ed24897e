import * as z from 'zod';
import { keptObject } from '../tool-schema';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import type { ConnectionContext } from '../connection-context';
import { answerCatalogCall } from '../catalog-call';
import { tracedCall } from '../traced-call';
import { SESSION_ARG } from './session-arg';

/** What execute answers as structuredContent, failures included (code -1 when nothing ran). */
export const RUN_OUTPUT_SHAPE = {
  returncode: z.number().int().describe('Exit code: 0 success; -1 stopped (timeout, cancel, shutdown) or never started; -N killed by signal N'),
  stdout: z.string().describe("The tool's output (on success: the answer as in the text content)"),
  stderr: z.string().optional().describe('Error output; absent when the run had a terminal, whose one stream is stdout'),
  duration_ms: z.number().describe('How long the run took'),
  truncated: z.boolean().describe('True when output past the cap was cut'),
  session: z.string().optional().describe('The session handle of the bucket this call started, when it kept variables there'),
};

// Built once: a zod schema costs a few kilobytes, which every MCP session would repeat.
// params as sent: a key named __proto__ stays data (see keptObject).
const EXECUTE_INPUT = z.object({
  key: z.string().describe('Tool key, e.g. ops.grep'),
  params: z
    .union([keptObject(), z.string()])
    .optional()
    .describe('The tool\'s parameters as an object, e.g. {"pattern": "TODO"} (or a JSON string of one)'),
  session: SESSION_ARG,
});
const RUN_OUTPUT = z.object(RUN_OUTPUT_SHAPE);

export function registerExecute(server: McpServer, ctx: ConnectionContext): RegisteredTool {
  return server.registerTool(
    'execute',
    {
      title: 'Run a catalog tool',
      description:
        'Runs the catalog tool `key` (as listed by search or describe_tools) with `params`, an object of its parameters. ' +
        'Parameters are checked first: unknown, missing or mistyped ones are an error naming the parameter. On success ' +
        'the answer is the tool\'s output; on failure it carries the return code, stdout and stderr. Send a progressToken ' +
        'to get progress notifications with the latest output while the tool runs.',
      inputSchema: EXECUTE_INPUT,
      outputSchema: RUN_OUTPUT,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    // Asks the user for missing required params first when the client can show a form (catalog-call.ts).
    async ({ key, params, session }, extra) => tracedCall(ctx, extra, 'execute', key, () => answerCatalogCall(server, ctx, key, params, extra, { structured: true, session })),
  );
}
