// The label values of a call's metrics. Every label has a bounded set of
// values, whatever a caller sends: a Prometheus series is kept for every
// distinct set of labels, so a key a caller makes up must not make a new one.
import type { Principal } from '../identity';

/** What an unknown tool key (or any `what` outside the bounded set) is counted as. */
export const UNKNOWN_TOOL = '(unknown)';

// The MCP surfaces that are not catalog tools: the five tools (execute
// without a usable key counts as `execute`), the prompts and the session
// resource, named as the audit trail names them.
const SURFACES: ReadonlySet<string> = new Set([
  'search',
  'describe_tools',
  'execute',
  'get_session',
  'set_session',
  'prompt:find_and_run',
  'prompt:explain_tool',
  'prompt:debug_error',
  'resource:mcc://session',
]);

/** The `tool` label: a catalog tool's key or an MCP surface's name, else UNKNOWN_TOOL. */
export function toolLabel(what: string, isCatalogTool: (key: string) => boolean): string {
  return SURFACES.has(what) || isCatalogTool(what) ? what : UNKNOWN_TOOL;
}

export type CallResult = 'ok' | 'tool_error' | 'refused';

/** ok: code 0; tool_error: the tool ran and exited non-zero; refused: nothing ran (or the call failed). */
export function resultLabel(code: number | 'error'): CallResult {
  if (code === 'error') return 'refused';
  return code === 0 ? 'ok' : 'tool_error';
}

export type PrincipalKind = 'owner' | 'user' | 'anonymous';

/** Who called, without a name: the server's owner, a user of the users file, or an anonymous caller. */
export function principalKind(p: Principal, ownerUser: string): PrincipalKind {
  if (p.anonymous) return 'anonymous';
  return p.user === ownerUser ? 'owner' : 'user';
}
