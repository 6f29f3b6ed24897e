// Small text helpers for what a run answers: notes appended to stderr.

export function appendLine(text: string, line: string | undefined): string {
  if (!line) return text;
  if (text === '') return line;
  return text.endsWith('\n') ? text + line : `${text}\n${line}`;
}

export function lastLine(text: string): string | undefined {
  const lines = text.trimEnd().split('\n');
  return lines[lines.length - 1] || undefined;
}

/**
 * Code 127 is the shell's "command not found": name the command, and the
 * PATH it was looked for on (the tool's own, from the server's floor).
 */
export function notFoundHint(env: Record<string, string>, code: number, output: string): string | undefined {
  if (code !== 127) return undefined;
  // dash: "sh: 1: foo: not found"; bash: "sh: line 1: foo: command not found"; busybox: "sh: foo: not found".
  const found = [...output.matchAll(/([^\s:'"]+): (?:command )?not found/g)];
  const name = found.length > 0 ? found[found.length - 1][1] : undefined;
  const what = name ? `'${name}' was not found` : 'a command was not found';
  const where = env.PATH !== undefined ? `PATH=${env.PATH}` : "no PATH, so /bin/sh looked in its default path";
  return `hint: ${what} (code 127): it is not installed, or not on the tool's PATH (${where}); give its full path, or set PATH in the tool's env.`;
}

export type StopReason = 'timeout' | 'cancelled' | 'shutdown';

/** The stderr line of a run that was stopped. */
export function stopNote(reason: StopReason | undefined, timeoutSec: number | undefined): string {
  if (reason === 'timeout') return `timeout after ${String(timeoutSec)}s`;
  if (reason === 'shutdown') return 'cancelled: the server is shutting down';
  return 'cancelled';
}
