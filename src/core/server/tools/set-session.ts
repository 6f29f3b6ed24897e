import * as z from 'zod';
import { keptObject } from '../tool-schema';
import type { McpServer } from '@modelcontextprotocol/server';
import { handleNote, toMcpResult, type ConnectionContext } from '../connection-context';
import { tracedCall } from '../traced-call';
import { SESSION_ARG, SESSION_HELP } from './session-arg';
import { fail } from '../../tool-result';

// Every JSON type spelled out, so schema checkers see a typed value; an
// object is stored as sent, a key named __proto__ included (see keptObject).
const JSON_VALUE = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.any()), keptObject()]);

// Built once: a zod schema costs a few kilobytes, which every MCP session would repeat.
const SET_SESSION_INPUT = z.object({
  name: z.string().describe('Variable name: lowercase letters, digits and _, not starting with a digit'),
  value: JSON_VALUE.describe('Any JSON value; stored with its type'),
  session: SESSION_ARG,
});

export function registerSetSession(server: McpServer, ctx: ConnectionContext): void {
  server.registerTool(
    'set_session',
    {
      title: 'Store a session variable',
      description:
        'Stores `value` (any JSON value: string, number, boolean, list, object or null; its type is kept) under `name` in this ' +
        'session. Every tool run afterwards in the session receives it (shell tools as $MCC_CTX_<NAME>, function tools in ' +
        'their context), so stash a target, a budget or a selected record once instead of passing it every time. ' +
        'name must match ^[a-z_][a-z0-9_]*$; user, email, groups and tools are read-only identity keys. ' +
        SESSION_HELP,
      inputSchema: SET_SESSION_INPUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    // Only the name is audited: values may be secrets.
    async ({ name, value, session }, extra) =>
      tracedCall(ctx, extra, 'set_session', undefined, async () => {
        const bucket = ctx.bucketFor(extra, session);
        if ('refused' in bucket) return toMcpResult(fail(bucket.refused));
        const r = await ctx.runtime.calls.setSession(ctx.principal, bucket.key, name, value, { clientName: ctx.clientName() });
        // A caller without a bucket has one now: tell it the handle that reaches it again.
        return toMcpResult(bucket.fresh && !r.isError ? { ...r, text: `${r.text} ${handleNote(bucket.key)}`, structured: { session: bucket.key } } : r);
      }),
  );
}
