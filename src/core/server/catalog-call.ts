// A catalog tool call over MCP (execute and the direct tools), handed to the
// call pipeline with what only MCP has: the caller's feedback (progress and
// log messages), and, when the client can show forms, an asker that puts
// missing required params to the person in one elicitation form.
import type { McpServer } from '@modelcontextprotocol/server';
import { inputRequired, inputResponse, isInputRequiredResult, type CallToolResult, type ElicitRequestFormParams, type InputRequiredResult } from '@modelcontextprotocol/server';
import type { ParamSpec, ToolDef } from '../catalog/types';
import type { CallOptions } from '../call/call-pipeline';
import type { AskAnswer, ParamAsker } from '../call/missing-params';
import type { ToolCallResult } from '../tool-result';
import { handleNote, toMcpResult, type HandlerExtra, type ConnectionContext } from './connection-context';
import { fail } from '../tool-result';
import { runAsTask } from './tasks/task-calls';
import { takesTasks } from './tasks/task-methods';
import { legacyTaskOf } from './tasks/legacy-task-methods';
import { taskRequestOf } from './sdk-gaps';
import { paramSchema } from './tool-schema';

/** How long a person has to fill in the form (the SDK's default of 60 s is too short to think). */
export const ELICIT_TIMEOUT_MS = 10 * 60 * 1000;

/** The key of the form in an input-required result and in the client's inputResponses. */
export const PARAMS_FORM = 'mcc_params';

/**
 * A catalog call as its MCP answer: the caller's progress and log messages
 * while it runs (call-feedback.ts), and an answer even when it was cancelled.
 * `structured`: execute declares an outputSchema and answers with
 * structuredContent too; a direct tool answers as the tool itself does, in
 * text (clients such as VS Code hand structuredContent to the model instead).
 */
export async function answerCatalogCall(
  server: McpServer,
  ctx: ConnectionContext,
  key: unknown,
  params: unknown,
  extra: HandlerExtra,
  { structured, session }: { structured: boolean; session: unknown },
): Promise<CallToolResult | InputRequiredResult> {
  const bucket = ctx.bucketFor(extra, session);
  if ('refused' in bucket) return toMcpResult(fail(bucket.refused));
  // Only a client that can show forms is asked for missing params; the pipeline decides when.
  const canAsk = server.server.getClientCapabilities()?.elicitation?.form !== undefined;
  const asking = canAsk ? paramAsker(ctx, extra) : undefined;
  const base: CallOptions = { clientName: ctx.clientName(), ...(asking ? { ask: asking.ask } : {}), ...(bucket.fresh ? { freshBucket: true } : {}) };
  const run = (more: CallOptions): Promise<ToolCallResult> => ctx.runtime.calls.execute(ctx.principal, bucket.key, key, params, { ...base, ...more });
  const answer = async (r: ToolCallResult): Promise<CallToolResult | InputRequiredResult> => {
    // 2026-07-28: the form goes back in the answer, and the client calls again with the user's answers.
    const form = asking?.pending();
    if (form) return inputRequired({ inputRequests: { [PARAMS_FORM]: inputRequired.elicit(form) } });
    const kept = bucket.fresh ? await withHandleIfKept(ctx, bucket.key, r) : r;
    return toMcpResult(structured ? kept : { isError: kept.isError, text: kept.text });
  };
  // A task: for a 2026-07-28 client that declares the extension, or a 2025-11-25 call that asks for one.
  const legacyTask = ctx.modern ? undefined : taskRequestOf(extra);
  if ((ctx.modern && takesTasks(server)) || legacyTask) {
    const task = { records: ctx.runtime.tasks, user: ctx.principal.user, run, answer, totalSeconds: (k: string) => ctx.feedback.totalSeconds(k), shortcut: ctx.modern };
    const started = await runAsTask(task);
    if ('answer' in started) return started.answer as CallToolResult;
    return (ctx.modern ? { resultType: 'task', ...started.task } : { task: legacyTaskOf(started.task) }) as unknown as CallToolResult;
  }
  const feedback = ctx.feedback.start(extra);
  let result: ToolCallResult;
  try {
    result = await run(feedback.call);
  } finally {
    feedback.stopProgress();
  }
  const answered = await answer(result);
  if (!isInputRequiredResult(answered)) feedback.answerIfCancelled(answered);
  return answered;
}

/**
 * How missing params are asked for: an elicitation request on a 2025-11-25
 * connection; on a 2026-07-28 request, the user's answer when this is the
 * call again with it, else the form, kept for an input-required answer.
 */
function paramAsker(ctx: ConnectionContext, extra: HandlerExtra): { ask: ParamAsker; pending(): ElicitRequestFormParams | undefined } {
  if (!ctx.modern) return { ask: (tool, missing) => askWithForm(tool, missing, extra), pending: () => undefined };
  let form: ElicitRequestFormParams | undefined;
  const ask: ParamAsker = (tool, missing) => {
    const answered = inputResponse(extra.mcpReq.inputResponses, PARAMS_FORM);
    if (answered.kind === 'elicit') {
      return Promise.resolve(answered.action === 'accept' ? { action: 'accept', content: answered.content ?? {} } : { action: answered.action });
    }
    form = formFor(tool, missing);
    return Promise.resolve({ action: 'later' });
  };
  return { ask, pending: () => form };
}

/** A call that started a bucket and left variables in it (write-back) tells the caller its handle. */
async function withHandleIfKept(ctx: ConnectionContext, bucketKey: string, answer: ToolCallResult): Promise<ToolCallResult> {
  const vars = await ctx.runtime.store.variables(ctx.principal.user, bucketKey);
  if (Object.keys(vars).length === 0) return answer;
  return { ...answer, text: `${answer.text}\n${handleNote(bucketKey)}`, ...(answer.structured ? { structured: { ...answer.structured, session: bucketKey } } : {}) };
}

/** One MCP elicitation form for the missing params, with the request it belongs to. */
async function askWithForm(tool: ToolDef, missing: ParamSpec[], extra: HandlerExtra): Promise<AskAnswer> {
  const answer = await extra.mcpReq.elicitInput(formFor(tool, missing), { signal: extra.mcpReq.signal, timeout: ELICIT_TIMEOUT_MS });
  return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
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
