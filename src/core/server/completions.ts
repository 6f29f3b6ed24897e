// Completion of tool keys (the prompts' `key` arguments and the
// mcc://tools/{key} template): the keys the caller may run, by prefix.
// The SDK sends at most 100 values and says when there are more.
import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, type CompleteResult } from '@modelcontextprotocol/server';
import type { ConnectionContext } from './connection-context';

/** The most values one completion answer carries (as the SDK sends). */
const MAX_COMPLETIONS = 100;

export function completeKeys(ctx: Pick<ConnectionContext, 'runtime' | 'principal'>, prefix: string | undefined): string[] {
  const p = (prefix ?? '').toLowerCase();
  return ctx.runtime.catalog
    .accessibleTools(ctx.principal)
    .map((t) => t.key)
    .filter((k) => k.toLowerCase().startsWith(p));
}

/** What this connection can complete: prompts (and those with a `key` argument), resource templates with {key}, fixed resources. */
export interface Completable {
  prompts: ReadonlySet<string>;
  keyPrompts: ReadonlySet<string>;
  keyTemplates: ReadonlySet<string>;
  resources: ReadonlySet<string>;
}

const NOTHING: CompleteResult = { completion: { values: [], hasMore: false } };

/**
 * Answers completion/complete for this connection: the `key` argument of a
 * prompt that has one, and the {key} of a resource template, with the keys
 * the caller may run. Set after the prompts and resources are registered, in
 * place of the SDK's handler, so that the prompts' argument schemas need no
 * completer bound to this connection and are built once for all of them.
 * Anything else answers as the SDK would: nothing, or an unknown reference.
 */
export function answerCompletions(server: McpServer, ctx: ConnectionContext, known: Completable): void {
  server.server.setRequestHandler('completion/complete', (request): CompleteResult => {
    const { ref, argument } = request.params;
    let keyed: boolean;
    if (ref.type === 'ref/prompt') {
      if (!known.prompts.has(ref.name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${ref.name} not found`);
      keyed = known.keyPrompts.has(ref.name);
    } else if (ref.type === 'ref/resource') {
      keyed = known.keyTemplates.has(ref.uri);
      if (!keyed && !known.resources.has(ref.uri)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource template ${ref.uri} not found`);
    } else {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid completion reference');
    }
    if (!keyed || argument.name !== 'key') return NOTHING;
    const all = completeKeys(ctx, argument.value);
    return { completion: { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS } };
  });
}
