// Every place MCC reaches past the MCP SDK's public surface (v2), each
// named for the hook the SDK lacks, so an SDK upgrade has one file to
// revisit. Nothing else patches or bypasses the SDK.
import * as z from 'zod';
import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
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
  hooks.validateToolOutput = (tool, result, name) => (result.resultType === 'task' || 'task' in result ? Promise.resolve() : check(tool, result, name));
}

/** What a 2025-11-25 task-augmented tools/call asked for (`params.task`). */
export interface TaskAugmentation {
  ttl?: number;
}

const TASK_REQUEST = Symbol('mcc.taskRequest');

/**
 * Missing hook: task-augmented tools/call on 2025-11-25 (its tasks have no
 * SDK runtime, and the SDK checks every tools/call answer as a plain
 * result). A call with `params.task` has its arguments checked as the SDK
 * does, then goes to the tool's own callback with its context marked
 * (taskRequestOf), and its answer, a {task}, goes out as it is.
 */
export function markTaskAugmentedCalls(server: McpServer): void {
  type Handler = (request: { params?: Record<string, unknown> }, ctx: object) => Promise<unknown>;
  interface Tool {
    enabled: boolean;
    executor(args: unknown, ctx: object): Promise<unknown>;
  }
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const mcp = server as unknown as { _registeredTools: Record<string, Tool | undefined>; validateToolInput(tool: Tool, args: unknown, name: string): Promise<unknown> };
  const sdk = handlers.get('tools/call');
  if (!sdk) throw new Error('tools/call must be registered before task-augmented calls are marked');
  handlers.set('tools/call', async (request, ctx) => {
    const task = request.params?.task;
    if (typeof task !== 'object' || task === null) return sdk(request, ctx);
    const name = String(request.params?.name);
    const tool = mcp._registeredTools[name];
    if (!tool?.enabled) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    const args = await mcp.validateToolInput(tool, request.params?.arguments, name);
    return tool.executor(args, Object.assign(ctx, { [TASK_REQUEST]: task }));
  });
}

/** The `task` param of the tools/call this context belongs to, when it had one. */
export function taskRequestOf(ctx: object): TaskAugmentation | undefined {
  return (ctx as { [TASK_REQUEST]?: TaskAugmentation })[TASK_REQUEST];
}
