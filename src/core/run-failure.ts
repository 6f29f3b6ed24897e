// How a failed run reads to the caller: the code, stdout and stderr in the
// text (an LLM reads that) and in structuredContent (a program reads that).
import type { ExecOutcome } from './runner/types';
import { fail, type ToolCallResult } from './tool-result';

export function formatRunFailure(key: string, outcome: ExecOutcome): ToolCallResult {
  const what = outcome.code === -1 ? 'was stopped' : 'failed';
  const text = [
    `Tool '${key}' ${what} with return code ${outcome.code}.`,
    '--- stdout ---',
    outcome.stdout.trimEnd(),
    '--- stderr ---',
    outcome.stderr.trimEnd(),
  ].join('\n');
  return fail(text, { returncode: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr });
}
