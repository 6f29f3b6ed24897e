// What every MCP handler needs to know about the connection it serves (one
// McpServer: an MCP session, a stateless request, or stdio's one client).
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import type { ToolCallResult } from '../tool-result';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { ConnectionFeedback } from './call-feedback';
import type { BucketChoice } from './bucket-key';

/** What the SDK tells a handler about its request. */
export type HandlerExtra = ServerContext;

export interface ConnectionContext {
  runtime: Runtime;
  /** Fixed for the connection: the principal that initialized it. */
  principal: Principal;
  /** The bucket key of this request (bucket-key.ts); a request that names none gets a new, unrecorded one. */
  bucketKeyFor(extra: HandlerExtra): string;
  /** The bucket of a call that may name one with a session handle (its `session` argument). */
  bucketFor(extra: HandlerExtra, session: unknown): BucketChoice;
  /** True on a 2026-07-28 request: no MCP session, input asked for with input-required results. */
  modern: boolean;
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

/** What a caller is told when a call of theirs started a bucket: the handle that reaches it again. */
export function handleNote(handle: string): string {
  return `Session handle: ${handle} (pass "session": "${handle}" in later calls to use these variables again).`;
}
