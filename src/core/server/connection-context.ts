// What every MCP handler needs to know about the connection it serves (one
// McpServer: an MCP session, a stateless request, or stdio's one client).
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import type { ToolCallResult } from '../tool-result';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { ConnectionFeedback } from './call-feedback';

/** What the SDK tells a handler about its request. */
export type HandlerExtra = ServerContext;

export interface ConnectionContext {
  runtime: Runtime;
  /** Fixed for the connection: the principal that initialized it. */
  principal: Principal;
  /** The bucket key of this request (bucket-key.ts). */
  bucketKeyFor(extra: HandlerExtra): string;
  clientName(): string | undefined;
  /** Progress and log messages of this connection's calls. */
  feedback: ConnectionFeedback;
}

export function toMcpResult(r: ToolCallResult): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: r.text }] };
  if (r.isError) result.isError = true;
  if (r.structured) result.structuredContent = r.structured;
  return result;
}
