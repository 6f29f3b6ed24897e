// How a run reads to the caller: the code, stdout and stderr in the text
// (an LLM reads that) and in structuredContent (a program reads that; the
// shape execute's outputSchema declares).
import type { RunOutcome } from '../tool-run/contract';
import type { ToolDef } from '../catalog/types';
import { fail, ok, type ToolCallResult } from '../tool-result';

/** A run as structuredContent; `stdout` is the answer's text on success. */
export function runDetails(outcome: RunOutcome, stdout = outcome.stdout): Record<string, unknown> {
  return {
    returncode: outcome.code,
    stdout,
    // A run in a terminal has one stream: stderr only holds what mcc noted.
    ...(outcome.terminal && outcome.stderr === '' ? {} : { stderr: outcome.stderr }),
    duration_ms: outcome.durationMs,
    truncated: outcome.truncated === true,
  };
}

/** A call refused before anything ran, in the same shape (code -1, the reason as stderr). */
export function refusalDetails(reason: string): Record<string, unknown> {
  return { returncode: -1, stdout: '', stderr: reason, duration_ms: 0, truncated: false };
}

export function formatRunFailure(key: string, outcome: RunOutcome): ToolCallResult {
  const what = outcome.code === -1 ? 'was stopped' : 'failed';
  const text = [
    `Tool '${key}' ${what} with return code ${outcome.code}.`,
    '--- stdout ---',
    outcome.stdout.trimEnd(),
    '--- stderr ---',
    outcome.stderr.trimEnd(),
  ].join('\n');
  return fail(text, runDetails(outcome));
}

/** What a call answers for its tool's outcome, with the note of a write-back that did not land. */
export function runAnswer(tool: ToolDef, outcome: RunOutcome, note: string): ToolCallResult {
  let result: ToolCallResult;
  if (outcome.code !== 0) result = formatRunFailure(tool.key, outcome);
  else {
    const answer = tool.kind === 'fn' ? (typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value ?? null)) : outcome.stdout;
    result = ok(answer, runDetails(outcome, answer));
  }
  return note ? { ...result, text: result.text + note } : result;
}
