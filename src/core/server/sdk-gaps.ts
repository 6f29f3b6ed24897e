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

/**
 * Missing hook: a tool with an output schema that answers with a task (the
 * 2026-07-28 tasks extension has no SDK runtime). The SDK would check the
 * task against the tool's output schema, find no structuredContent and
 * turn it into an error; the task's answer is checked when it ends instead.
 */
export function acceptTaskResults(server: McpServer): void {
  const hooks = server as unknown as { validateToolOutput(tool: unknown, result: { resultType?: unknown }, name: string): Promise<void> };
  const check = hooks.validateToolOutput.bind(server);
  hooks.validateToolOutput = (tool, result, name) => (result.resultType === 'task' ? Promise.resolve() : check(tool, result, name));
}
