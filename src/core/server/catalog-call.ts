// One path for every catalog tool call (execute and the direct tools): when
// required scalar parameters are missing and the client can show forms, ask
// the person for them in one form first (MCP elicitation); accepted answers
// join the params and are validated like any others. Declined or cancelled:
// a clear error result, nothing runs. Without form support, or when a
// missing parameter is a list or an object (forms cannot hold those), the
// call goes on and fails as it always did, naming the parameter.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ParamSpec, ToolDef } from '../catalog/types';
import { parseParamsArgument, type CallOptions } from '../runtime';
import { fail, type ToolCallResult } from '../tool-result';
import type { FeedbackExtra } from './call-feedback';
import { toMcpResult, type HandlerExtra, type McpSessionContext } from './session-context';
import { isScalar, paramSchema, visibleParams } from './tool-schema';

/** How long a person has to fill in the form (the SDK's default of 60 s is too short to think). */
export const ELICIT_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * A catalog call as its MCP answer: the caller's progress and log messages
 * while it runs (run-feedback.ts), and an answer even when it was cancelled.
 * `structured`: execute declares an outputSchema and answers with
 * structuredContent too; a direct tool answers as the tool itself does, in
 * text (clients such as VS Code hand structuredContent to the model instead).
 */
export async function answerCatalogCall(
  server: McpServer,
  ctx: McpSessionContext,
  key: unknown,
  params: unknown,
  extra: HandlerExtra & FeedbackExtra,
  { structured }: { structured: boolean },
): Promise<CallToolResult> {
  const answer = await ctx.feedback.run(extra, (call) => runCatalogCall(server, ctx, key, params, extra, call));
  const result = toMcpResult(structured ? answer : { isError: answer.isError, text: answer.text });
  ctx.feedback.answerCancelled(extra, result);
  return result;
}

async function runCatalogCall(
  server: McpServer,
  ctx: McpSessionContext,
  key: unknown,
  params: unknown,
  extra: HandlerExtra,
  feedback: Pick<CallOptions, 'events' | 'signal'>,
): Promise<ToolCallResult> {
  const call = { ...feedback, clientName: ctx.clientName() };
  const sessionKey = ctx.sessionKeyFor(extra);
  const ask = plan(server, ctx, key, params);
  if (!ask) return ctx.runtime.execute(ctx.principal, sessionKey, key, params, call);

  const started = ctx.runtime.now();
  const names = ask.missing.map((p) => `'${p.name}'`).join(', ');
  const refuse = (text: string): ToolCallResult => {
    const result = fail(`'${ask.tool.key}' did not run: ${text}`);
    ctx.runtime.recordRefusal(ctx.principal, sessionKey, ask.tool.key, ask.given, started, result, call);
    return result;
  };
  let answer: ElicitResult;
  try {
    answer = await server.server.elicitInput(formFor(ask.tool, ask.missing), {
      signal: extra.signal,
      timeout: ELICIT_TIMEOUT_MS,
      ...(extra.requestId !== undefined ? { relatedRequestId: extra.requestId } : {}),
    });
  } catch (e) {
    return refuse(`asking the user for ${names} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (answer.action === 'decline') return refuse(`the user declined to give ${names}. Ask them, or call it again with those parameters.`);
  if (answer.action === 'cancel') return refuse(`the user cancelled the form asking for ${names}.`);
  const merged = { ...ask.given, ...(answer.content ?? {}) };
  return ctx.runtime.execute(ctx.principal, sessionKey, ask.tool.key, merged, call);
}

interface Ask {
  tool: ToolDef;
  given: Record<string, unknown>;
  missing: ParamSpec[];
}

/** What to ask for, or undefined when the call should simply go on. */
function plan(server: McpServer, ctx: McpSessionContext, key: unknown, params: unknown): Ask | undefined {
  if (!server.server.getClientCapabilities()?.elicitation?.form) return undefined;
  if (typeof key !== 'string') return undefined;
  // Only tools the caller may run: the runtime answers everything else as before.
  const tool = ctx.runtime.accessibleTools(ctx.principal).find((t) => t.key === key);
  if (!tool) return undefined;
  const given = parseParamsArgument(params);
  if (typeof given === 'string') return undefined;
  const missing = visibleParams(tool).filter((p) => p.required && (given[p.name] === undefined || given[p.name] === null));
  if (missing.length === 0 || !missing.every(isScalar)) return undefined;
  return { tool, given, missing };
}

/** One form for all missing params: their types, descriptions (with examples) and defaults. */
export function formFor(tool: ToolDef, missing: ParamSpec[]): ElicitRequestFormParams {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of missing) {
    const { examples: _examples, ...schema } = paramSchema(p);
    const example = p.example !== undefined ? `e.g. ${typeof p.example === 'string' ? p.example : JSON.stringify(p.example)}` : '';
    const description = [p.description?.trim(), example].filter(Boolean).join(' — ');
    properties[p.name] = { ...schema, title: p.name, ...(description ? { description } : {}) };
  }
  const about = tool.description.trim().split('\n')[0];
  return {
    mode: 'form',
    message: `The tool '${tool.key}' needs ${missing.map((p) => p.name).join(', ')} to run.${about ? ` ${about}` : ''}`,
    requestedSchema: { type: 'object', properties, required: missing.map((p) => p.name) } as ElicitRequestFormParams['requestedSchema'],
  };
}
