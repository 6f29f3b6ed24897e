// Every place MCC reaches past the MCP SDK's public surface (1.x), each
// named for the hook the SDK lacks, so an SDK upgrade has one file to
// revisit. Nothing else patches or bypasses the SDK.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Missing hook: batching list_changed. The SDK announces each tool
 * registration and removal on its own; a catalog reload must not become
 * fifty messages, so `change` runs with them held back, then one is sent
 * if any was due.
 */
export function withOneToolListChanged(server: McpServer, change: () => void): void {
  const send = server.sendToolListChanged.bind(server);
  let due = false;
  server.sendToolListChanged = () => {
    due = true;
  };
  try {
    change();
  } finally {
    server.sendToolListChanged = send;
  }
  if (due) send();
}

// logging/setLevel with a loose params schema, so a bad level reaches the handler.
const SetLevelRequest = z.object({
  method: z.literal('logging/setLevel'),
  params: z.object({ level: z.unknown() }).passthrough(),
});

/**
 * Missing hook: a per-connection logging level. The SDK keeps the level of
 * logging/setLevel to itself and rejects a bad one as an internal error;
 * MCC answers it, so a bad level is an invalid-params error naming the levels.
 */
export function onSetLoggingLevel(server: McpServer, setLevel: (level: unknown) => void): void {
  server.server.setRequestHandler(SetLevelRequest, (req) => {
    setLevel(req.params.level);
    return {};
  });
}

/**
 * Missing hook: answering a cancelled request. The SDK drops the answer of a
 * call its client cancelled (the spec lets a receiver do so), but then the
 * call's SSE stream stays open; a client that cancelled ignores a late answer.
 */
export function sendCancelledAnswer(server: McpServer, requestId: RequestId, result: CallToolResult): void {
  server.server.transport?.send({ jsonrpc: '2.0', id: requestId, result }).catch(() => undefined);
}

/** What the SSE replay needs of the event store. */
export interface AnsweredStreams {
  answeredAfter(lastEventId: string): Array<{ id: string; message: JSONRPCMessage }> | undefined;
}

/**
 * Missing hook: ending a resumed stream whose answer is stored. A client
 * resuming such a stream gets the rest of it and the end of the stream;
 * the SDK's transport would hold it open. True when it was answered here.
 */
export function replayAnsweredStream(req: IncomingMessage, res: ServerResponse, events: AnsweredStreams): boolean {
  const last = header(req, 'last-event-id');
  if (req.method !== 'GET' || last === undefined || !(header(req, 'accept') ?? '').includes('text/event-stream')) return false;
  const rest = events.answeredAfter(last);
  if (!rest) return false;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform' });
  for (const e of rest) res.write(`event: message\nid: ${e.id}\ndata: ${JSON.stringify(e.message)}\n\n`);
  res.end();
  return true;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
