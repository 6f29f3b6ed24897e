// Small text helpers for what a run answers: notes appended to stderr.
import type { ToolDef } from '../catalog/types';

export function appendLine(text: string, line: string | undefined): string {
  if (!line) return text;
  if (text === '') return line;
  return text.endsWith('\n') ? text + line : `${text}\n${line}`;
}

export function lastLine(text: string): string | undefined {
  const lines = text.trimEnd().split('\n');
  return lines[lines.length - 1] || undefined;
}

export function notFoundHint(tool: Pick<ToolDef, 'envPassthrough'>, env: Record<string, string>, code: number, output: string): string | undefined {
  if (code === 0 || tool.envPassthrough || 'PATH' in env) return undefined;
  if (code !== 127 && !/not found/i.test(output)) return undefined;
  return (
    'hint: this tool has no PATH because env_passthrough is false; ' +
    'give the program by its full path (e.g. /usr/bin/curl) or set PATH in the tool\'s env.'
  );
}

export type StopReason = 'timeout' | 'cancelled' | 'shutdown';

/** The stderr line of a run that was stopped. */
export function stopNote(reason: StopReason | undefined, timeoutSec: number | undefined): string {
  if (reason === 'timeout') return `timeout after ${String(timeoutSec)}s`;
  if (reason === 'shutdown') return 'cancelled: the server is shutting down';
  return 'cancelled';
}
