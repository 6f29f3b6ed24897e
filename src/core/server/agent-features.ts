// What an agent gets beyond the five catalog tools, for one connection:
// MCC's prompts, the catalog and the session as resources (with
// subscriptions), completions for tool keys, and each catalog tool as a tool
// of its own. Kept in step with the catalog, the expose mode and the store
// until the connection closes.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import type { ToolDef } from '../catalog/types';
import { DirectTools } from './direct-tools';
import { KEY_PROMPTS, PROMPT_NAMES, registerPrompts } from './prompts/register-prompts';
import { answerCompletions, type Completable } from './completions';
import { registerSessionResource, SESSION_URI } from './resources/session-resource';
import { ResourceSubscriptions } from './resources/subscriptions';
import { registerToolResources, TOOL_URI_PREFIX } from './resources/tool-resources';
import type { ConnectionContext } from './connection-context';

// What completes, the same for every connection.
const COMPLETABLE: Completable = {
  prompts: PROMPT_NAMES,
  keyPrompts: KEY_PROMPTS,
  keyTemplates: new Set([`${TOOL_URI_PREFIX}{key}`]),
  resources: new Set([SESSION_URI]),
};

export function addAgentFeatures(server: McpServer, ctx: ConnectionContext, catalogTools: RegisteredTool[]): void {
  registerPrompts(server, ctx);
  // 2026-07-28 has no resources/subscribe (subscriptions/listen is the HTTP handler's), and a server lives one request.
  const subscriptions = ctx.modern ? undefined : new ResourceSubscriptions(server, ctx);
  registerToolResources(server, ctx);
  registerSessionResource(server, ctx);
  answerCompletions(server, ctx, COMPLETABLE);
  const direct = new DirectTools(server, ctx, catalogTools);
  direct.sync();
  if (subscriptions) followChanges(server, ctx, direct, subscriptions);
}

/** Keeps a long-lived connection in step with the catalog, the expose mode and the store until it closes. */
function followChanges(server: McpServer, ctx: ConnectionContext, direct: DirectTools, subscriptions: ResourceSubscriptions): void {
  // The runtime hands out the same list until the catalog changes, so each
  // connection keeps a reference, not a copy of thousands of keys.
  let listed = ctx.runtime.catalog.accessibleTools(ctx.principal);
  const listeners = [
    ctx.runtime.catalog.onDidChange(() => {
      direct.sync();
      const now = ctx.runtime.catalog.accessibleTools(ctx.principal);
      if (!sameKeys(now, listed)) server.sendResourceListChanged();
      listed = now;
      subscriptions.catalogChanged();
    }),
    ctx.runtime.catalog.onDidChangeExpose(() => direct.sync()),
    ctx.runtime.store.onDidChange((c) => subscriptions.storeChanged(c)),
  ];
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    for (const l of listeners) l.dispose();
  };
}

function sameKeys(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  return a === b || (a.length === b.length && a.every((t, i) => t.key === b[i]?.key));
}
