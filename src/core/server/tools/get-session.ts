import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { tracedCall } from '../traced-call';
import { toMcpResult, type ConnectionContext } from '../connection-context';
import { SESSION_ARG } from './session-arg';
import { fail } from '../../tool-result';

// Built once: a zod schema costs a few kilobytes, which every MCP session would repeat.
const GET_SESSION_INPUT = z.object({
  name: z.string().describe('Variable name: lowercase letters, digits and _, not starting with a digit'),
  session: SESSION_ARG,
});

export function registerGetSession(server: McpServer, ctx: ConnectionContext): void {
  server.registerTool(
    'get_session',
    {
      title: 'Read a session variable',
      description:
        'Returns the session variable `name`, JSON-encoded so its type is unambiguous: a string comes back quoted ("10.0.0.5"), ' +
        'a number bare (1000), lists and objects as JSON, and an unset name as null. The reserved names user, email, groups ' +
        'and tools return the authenticated caller\'s identity (tools = the keys you may execute).',
      inputSchema: GET_SESSION_INPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ name, session }, extra) =>
      tracedCall(ctx, extra, 'get_session', undefined, async () => {
        const bucket = ctx.bucketFor(extra, session);
        if ('refused' in bucket) return toMcpResult(fail(bucket.refused));
        const call = { clientName: ctx.clientName(), ...(bucket.fresh ? { freshBucket: true } : {}) };
        return toMcpResult(await ctx.runtime.calls.getSession(ctx.principal, bucket.key, name, call));
      }),
  );
}
