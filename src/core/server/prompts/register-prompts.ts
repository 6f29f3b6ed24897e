// MCC's prompts (as the original MCC has them): find_and_run(task),
// explain_tool(key), debug_error(key, error). Their `key` arguments complete
// to the keys the caller may run; their text is built for this catalog, this
// caller and this session (prompt-text.ts).
import * as z from 'zod';
import { completable } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, type GetPromptResult } from '@modelcontextprotocol/server';
import { isReservedKey } from '../../identity';
import { exposure } from '../../expose';
import type { HandlerExtra, ConnectionContext } from '../connection-context';
import { debugErrorText, explainToolText, findAndRunText, type PromptSetting } from './prompt-text';

async function setting(ctx: ConnectionContext, bucketKey: string): Promise<PromptSetting> {
  const tools = ctx.runtime.catalog.accessibleTools(ctx.principal);
  const vars = Object.keys(await ctx.runtime.calls.view(ctx.principal, bucketKey)).filter((k) => !isReservedKey(k));
  return { tools, show: exposure(ctx.runtime.catalog.expose, tools.length), sessionVars: vars.sort() };
}

/** One prompt's answer, built from this caller's setting and audited like a call (`prompt:<name>`). */
function answered(ctx: ConnectionContext, extra: HandlerExtra, name: string, args: Record<string, unknown>, build: (s: PromptSetting) => GetPromptResult): Promise<GetPromptResult> {
  const scope = { principal: ctx.principal, bucketKey: ctx.bucketKeyFor(extra) };
  return ctx.runtime.calls.read(scope, `prompt:${name}`, args, { clientName: ctx.clientName() }, async () => build(await setting(ctx, scope.bucketKey)));
}

function userMessage(description: string, text: string): GetPromptResult {
  return { description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

// Built once, though every MCP session registers the prompts: a zod schema
// costs kilobytes. The `key` arguments are marked completable (so the SDK
// declares completions) and completed per connection by answerCompletions
// (completions.ts), which knows the caller.
const keyArg = (what: string): z.ZodString => completable(z.string().describe(what), () => []);
const ARGS = {
  find_and_run: { task: z.string().describe('What to get done, in plain words, e.g. "count the TODOs in src"') },
  explain_tool: { key: keyArg('The tool key, e.g. ops.grep (completes to the tools you may run)') },
  debug_error: { key: keyArg('The key of the tool that failed, e.g. ops.grep'), error: z.string().describe('The error text the tool answered with') },
};
const ARG_OBJECTS = { find_and_run: z.object(ARGS.find_and_run), explain_tool: z.object(ARGS.explain_tool), debug_error: z.object(ARGS.debug_error) };

/** The prompts, and those whose `key` argument completes to tool keys. */
export const PROMPT_NAMES: ReadonlySet<string> = new Set(Object.keys(ARGS));
export const KEY_PROMPTS: ReadonlySet<string> = new Set(Object.entries(ARGS).filter(([, args]) => 'key' in args).map(([name]) => name));

export function registerPrompts(server: McpServer, ctx: ConnectionContext): void {
  const findAndRun = server.registerPrompt(
    'find_and_run',
    {
      title: 'Find a tool and run it',
      description: 'Finds the catalog tool for a task (search, describe_tools) and runs it (execute), using the session store for values later steps need.',
      argsSchema: ARGS.find_and_run,
    },
    ({ task }, extra) => answered(ctx, extra, 'find_and_run', { task }, (s) => userMessage(`Find and run a tool for: ${task}`, findAndRunText(task, s))),
  );

  const explainTool = server.registerPrompt(
    'explain_tool',
    {
      title: 'Explain a catalog tool',
      description: 'Explains what a catalog tool does, its parameters (required or optional) and when to use it.',
      argsSchema: ARGS.explain_tool,
    },
    ({ key }, extra) =>
      answered(ctx, extra, 'explain_tool', { key }, (s) => {
        const tool = s.tools.find((t) => t.key === key);
        // The same answer for a key that does not exist and one the caller may not run.
        if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No tool '${key}' you can run; complete the key, or use search / describe_tools.`);
        return userMessage(`Explain ${key}`, explainToolText(tool, s));
      }),
  );

  const debugError = server.registerPrompt(
    'debug_error',
    {
      title: 'Debug a tool error',
      description: 'Diagnoses an error a catalog tool answered with and suggests how to fix the call.',
      argsSchema: ARGS.debug_error,
    },
    ({ key, error }, extra) =>
      answered(ctx, extra, 'debug_error', { key, error }, (s) => userMessage(`Debug ${key}`, debugErrorText(key, error, s.tools.find((t) => t.key === key), s))),
  );
  // The SDK built an object schema of each prompt's arguments for this
  // connection; the shared one describes the same arguments.
  findAndRun.argsSchema = ARG_OBJECTS.find_and_run;
  explainTool.argsSchema = ARG_OBJECTS.explain_tool;
  debugError.argsSchema = ARG_OBJECTS.debug_error;
}
