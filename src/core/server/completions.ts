// Completion of tool keys (the prompts' `key` arguments and the
// mcc://tools/{key} template): the keys the caller may run, by prefix.
// The SDK sends at most 100 values and says when there are more.
import type { McpSessionContext } from './session-context';

export function completeKeys(ctx: Pick<McpSessionContext, 'runtime' | 'principal'>, prefix: string | undefined): string[] {
  const p = (prefix ?? '').toLowerCase();
  return ctx.runtime
    .accessibleTools(ctx.principal)
    .map((t) => t.key)
    .filter((k) => k.toLowerCase().startsWith(p));
}
