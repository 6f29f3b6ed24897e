// The "ask for what is missing" step of a call: when required params that a
// form can hold are missing and the caller's client can ask its user (MCP
// elicitation), the host hands the pipeline an asker; its answer joins the
// params, which are then validated like any others.
import type { ParamSpec, ToolDef } from '../catalog/types';
import { isScalar, visibleParams } from '../catalog/visible-params';

/** `later`: the user answers in a new request (a 2026-07-28 input-required result); this call does not run. */
export type AskAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' } | { action: 'later' };

/** Asks the caller's user for params, e.g. with one MCP elicitation form. */
export type ParamAsker = (tool: ToolDef, missing: ParamSpec[]) => Promise<AskAnswer>;

/** The required params a form should ask for, or none when the call should simply go on. */
export function paramsToAsk(tool: ToolDef, given: Record<string, unknown>): ParamSpec[] {
  const missing = visibleParams(tool).filter((p) => p.required && (given[p.name] === undefined || given[p.name] === null));
  // A list or an object cannot be typed into a form: the call goes on and fails naming it.
  return missing.every(isScalar) ? missing : [];
}

/** The params with the user's answers, or why the call does not run. */
export async function askMissing(tool: ToolDef, given: Record<string, unknown>, ask: ParamAsker): Promise<{ params: Record<string, unknown> } | { refused: string }> {
  const missing = paramsToAsk(tool, given);
  if (missing.length === 0) return { params: given };
  const names = missing.map((p) => `'${p.name}'`).join(', ');
  const refused = (text: string): { refused: string } => ({ refused: `'${tool.key}' did not run: ${text}` });
  let answer: AskAnswer;
  try {
    answer = await ask(tool, missing);
  } catch (e) {
    return refused(`asking the user for ${names} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (answer.action === 'decline') return refused(`the user declined to give ${names}. Ask them, or call it again with those parameters.`);
  if (answer.action === 'cancel') return refused(`the user cancelled the form asking for ${names}.`);
  if (answer.action === 'later') return refused(`waiting for the user's answer to the form asking for ${names}.`);
  return { params: { ...given, ...answer.content } };
}
