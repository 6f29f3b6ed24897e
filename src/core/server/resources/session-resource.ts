// mcc://session: the caller's own session store as JSON — the identity keys
// (user, email, groups, tools; read-only, as ever) and the variables of this
// session. Resources are read-only by nature: set_session changes it.
import type { McpServer } from '@modelcontextprotocol/server';
import type { ConnectionContext } from '../connection-context';

export const SESSION_URI = 'mcc://session';

export function registerSessionResource(server: McpServer, ctx: ConnectionContext): void {
  server.registerResource(
    'session',
    SESSION_URI,
    {
      title: 'This session',
      description:
        'Your own session store as JSON: your identity (user, email, groups, tools; read-only) and the variables set in this ' +
        'session with set_session or by tools. Subscribe to hear when it changes.',
      mimeType: 'application/json',
    },
    async (uri, extra) => {
      const scope = { principal: ctx.principal, bucketKey: ctx.bucketKeyFor(extra) };
      // Audited like a get_session of every variable at once.
      const view = await ctx.runtime.calls.read(scope, `resource:${SESSION_URI}`, {}, { clientName: ctx.clientName() }, () => ctx.runtime.calls.view(scope.principal, scope.bucketKey));
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(view, null, 2) }] };
    },
  );
}
