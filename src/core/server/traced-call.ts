// The span of one MCP tools/call (execute, a direct tool, get_session,
// set_session): a child of the HTTP request's span, or of the trace the
// caller names in the request's `_meta` (traceparent, tracestate), which
// wins for that call; over stdio, where there are no headers, `_meta` is the
// only way in. It records the tool, the catalog key, the caller's kind and
// whether the answer is an error; never a param, variable value or user name.
import { inSpan, tracing } from '../trace/tracing';
import { metaCarrier, principalKind } from '../trace/trace-context';
import type { ConnectionContext, HandlerExtra } from './connection-context';

const MAX_KEY = 128;

export function tracedCall<T>(ctx: ConnectionContext, extra: HandlerExtra, tool: string, key: unknown, answer: () => Promise<T>): Promise<T> {
  if (!tracing().enabled) return answer();
  const remote = metaCarrier(extra.mcpReq._meta);
  const attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool,
    'mcc.principal.kind': principalKind(ctx.principal),
    'mcc.mcp.modern': ctx.modern,
    ...(typeof key === 'string' && key.length <= MAX_KEY ? { 'mcc.tool.key': key } : {}),
  };
  return inSpan(`tools/call ${tool}`, { role: 'entry', attributes, ...(remote ? { remote } : {}) }, async (span) => {
    const answered = await answer();
    const isError = (answered as { isError?: unknown }).isError === true;
    span.set('mcc.call.error', isError);
    if (isError) span.fail('the tool answered with an error');
    return answered;
  });
}
