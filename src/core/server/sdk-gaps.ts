// Every place MCC reaches past the MCP SDK's public surface (v2), each
// named for the hook the SDK lacks, so an SDK upgrade has one file to
// revisit. Nothing else patches or bypasses the SDK.
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/server';

// logging/setLevel's params, loose, so a bad level reaches the handler.
const SetLevelParams = z.looseObject({ level: z.unknown() });

/**
 * Missing hook: a per-connection logging level. The SDK keeps the level of
 * logging/setLevel to itself and rejects a bad one as an internal error;
 * MCC answers it, so a bad level is an invalid-params error naming the levels.
 */
export function onSetLoggingLevel(server: McpServer, setLevel: (level: unknown) => void): void {
  server.server.setRequestHandler('logging/setLevel', { params: SetLevelParams }, (params) => {
    setLevel(params.level);
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
