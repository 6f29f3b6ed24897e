// Terminal text for run events: a header with the (masked) command, the
// output as the program wrote it, and a footer with exit code and duration.
// ANSI colours only; the Pseudoterminal needs CRLF line ends.
import type { RunEvent } from '../core/tool-run/contract';
import { shortKey } from './value-format';

const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const BOLD = '\x1b[1m';
const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const CYAN = '\x1b[36m';

/** A lone LF moves down without returning to column 0 in a terminal: make every line end CRLF. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

export function formatStarted(e: Extract<RunEvent, { type: 'started' }>): string {
  const who = `${e.caller.user} · ${shortKey(e.caller.bucketKey)}`;
  const head = `${BOLD}${CYAN}▶ ${e.toolKey}${RESET} ${DIM}(${who} · ${e.mode} · ${new Date(e.at).toLocaleTimeString()})${RESET}`;
  const cmd = toCrlf(e.command.replace(/\s+$/, '')).split('\r\n').map((l, i) => `${DIM}${i === 0 ? '$' : '>'} ${l}${RESET}`).join('\r\n');
  return `${head}\r\n${cmd}\r\n`;
}

/** Output passes through unchanged apart from line ends; stderr from a pipe is tinted. */
export function formatOutput(e: Extract<RunEvent, { type: 'output' }>, mode: string | undefined): string {
  const text = toCrlf(e.data);
  // A pty already merges and colours both streams; only piped stderr gets a colour of ours.
  if (e.stream === 'stderr' && mode !== 'pty') return `${YELLOW}${text}${RESET}`;
  return text;
}

export function formatExited(e: Extract<RunEvent, { type: 'exited' }>, needsNewline: boolean): string {
  const ok = e.code === 0;
  const colour = ok ? GREEN : RED;
  const mark = ok ? '✔' : '✖';
  const what = exitLabel(e);
  const extra = [formatDuration(e.durationMs), e.cached ? 'cached' : undefined].filter(Boolean).join(' · ');
  const err = e.error ? ` ${DIM}— ${e.error}${RESET}` : '';
  return `${needsNewline ? '\r\n' : ''}${colour}${mark} ${what}${RESET} ${DIM}(${extra})${RESET}${err}\r\n\r\n`;
}

/**
 * What ended a run. The runner reports code -1 for every run it stopped or
 * never started; its error text says which (exec-executor's stop notes:
 * "timeout after 5s", "cancelled", "cancelled: the server is shutting down",
 * each maybe followed by " (in the transform)").
 */
export function exitLabel(e: Pick<Extract<RunEvent, { type: 'exited' }>, 'code' | 'error'>): string {
  if (e.code !== -1 || !e.error) return `exit ${e.code}`;
  const err = e.error.trim();
  if (/^timeout after\b/i.test(err)) return 'timeout';
  if (/^cancelled: the server is shutting down/i.test(err)) return 'stopped';
  if (/^cancelled\b/i.test(err)) return 'cancelled';
  if (/^the run failed inside the runtime/i.test(err)) return 'failed';
  // Anything else stopped it before it ran (bad input, shutting down, spawn errors).
  return 'failed to start';
}

export function formatCancelRequest(): string {
  return `${YELLOW}^C — cancelling…${RESET}\r\n`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m ${Math.round((ms % 60_000) / 1000)}s`;
}

/** The terminal's name for one run (perRun) or for all of them. */
export function terminalName(perRun: boolean, toolKey: string): string {
  return perRun ? `MCC: ${toolKey}` : 'MCC';
}
