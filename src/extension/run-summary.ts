// The one line a Run Tool notification shows for a result: for a failure,
// why it failed (what stopped it, or its first line of error output), not
// how long the output is.
import type { ToolCallResult } from '../core/tool-result';

const MAX = 200;

export function resultSummary(result: ToolCallResult): string {
  if (result.isError) return failureSummary(result);
  const lines = nonEmptyLines(result.text);
  if (lines.length === 0) return '(no output)';
  if (lines.length === 1) return clip(lines[0]);
  return `${lines.length} lines`;
}

function failureSummary(result: ToolCallResult): string {
  const s = result.structured;
  if (s && typeof s.returncode === 'number') {
    const stderr = nonEmptyLines(typeof s.stderr === 'string' ? s.stderr : '');
    const stdout = nonEmptyLines(typeof s.stdout === 'string' ? s.stdout : '');
    // A run the runner stopped (-1) ends its stderr with why: "timeout after 2s", "cancelled".
    if (s.returncode === -1 && stderr.length) return clip(stderr[stderr.length - 1]);
    const first = stderr[0] ?? stdout[0];
    return clip(first ? `exit ${s.returncode}: ${first}` : `exit ${s.returncode}`);
  }
  // Refused before running (bad params, not allowed, untrusted): one sentence of the runtime.
  return clip(nonEmptyLines(result.text)[0] ?? 'failed');
}

function nonEmptyLines(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
}

function clip(line: string): string {
  return line.length <= MAX ? line : `${line.slice(0, MAX - 1)}…`;
}
