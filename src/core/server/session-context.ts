// What every MCP tool handler needs to know about the connection it serves.
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import type { ToolCallResult } from '../tool-result';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The subset of the SDK's request extra the handlers read. */
export interface HandlerExtra {
  signal: AbortSignal;
  /** The JSON-RPC id of the request (requests to the client, e.g. elicitation, go with it). */
  requestId?: string | number;
  sessionId?: string;
  requestInfo?: { headers: Record<string, string | string[] | undefined> };
}

export interface McpSessionContext {
  runtime: Runtime;
  /** Fixed for the connection: the principal that initialized it. */
  principal: Principal;
  /** The bucket key for this request (X-MCC-Session-Key, else the MCP session id). */
  sessionKeyFor(extra: HandlerExtra): string;
  clientName(): string | undefined;
}

export function toMcpResult(r: ToolCallResult): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: r.text }] };
  if (r.isError) result.isError = true;
  if (r.structured) result.structuredContent = r.structured;
  return result;
}

/** Runs a handler that is not `execute` and writes its audit line. */
export async function audited(
  ctx: McpSessionContext,
  extra: HandlerExtra,
  tool: string,
  params: Record<string, unknown>,
  run: () => ToolCallResult | Promise<ToolCallResult>,
): Promise<CallToolResult> {
  const started = ctx.runtime.now();
  let result: ToolCallResult;
  try {
    result = await run();
  } catch (e) {
    // Still one audit line and a clear error result, never a bare protocol error.
    result = { isError: true, text: `${tool} failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  ctx.runtime.recordCall(ctx.principal, ctx.sessionKeyFor(extra), tool, params, started, result);
  return toMcpResult(result);
}
