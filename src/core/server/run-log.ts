// A run as MCP log messages for the session that called it: its start
// (info), its stderr lines (warning; runs in a terminal have one merged
// stream, so none) and its exit (info, or error when it failed). stderr
// lines are batched and budgeted, so a chatty tool cannot flood the client.
import type { LoggingLevel } from '@modelcontextprotocol/server';
import { cleanTerminalText } from '../runner/terminal-text';
import type { RunEvent, RunEventSink } from '../tool-run/contract';

export type SendLog = (level: LoggingLevel, logger: string, data: string) => void;

const FLUSH_MS = 250;
const MAX_MESSAGE_CHARS = 2000;
const MAX_STDERR_MESSAGES = 100;

export class RunLog implements RunEventSink {
  private pending = '';
  private sentStderr = 0;
  private dropped = false;
  private toolKey = 'mcc';
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly send: SendLog) {}

  emit(e: RunEvent): void {
    if (e.type === 'started') {
      this.toolKey = e.toolKey;
      this.send('info', this.toolKey, `started ${e.toolKey} (${e.mode})`);
    } else if (e.type === 'output') {
      if (e.stream !== 'stderr' || this.dropped) return;
      this.pending += e.data;
      this.timer ??= setTimeout(() => this.flush(false), FLUSH_MS);
    } else {
      this.flush(true);
      const how = e.cached ? ' (answered from the cache)' : '';
      const why = e.error ? `: ${e.error}` : '';
      this.send(e.code === 0 ? 'info' : 'error', this.toolKey, `${this.toolKey} exited with code ${e.code} after ${e.durationMs} ms${how}${why}`);
    }
  }

  // Complete lines go out; a partial one waits for its end (or the exit).
  private flush(final: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const cut = final ? this.pending.length : this.pending.lastIndexOf('\n') + 1;
    const text = cleanTerminalText(this.pending.slice(0, cut)).trimEnd();
    this.pending = this.pending.slice(cut);
    if (this.pending) this.timer = setTimeout(() => this.flush(true), FLUSH_MS);
    if (!text || this.dropped) return;
    if (this.sentStderr >= MAX_STDERR_MESSAGES) {
      this.dropped = true;
      this.send('warning', this.toolKey, `more stderr of ${this.toolKey} is not forwarded (it is in the result)`);
      return;
    }
    this.sentStderr++;
    this.send('warning', this.toolKey, text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text);
  }
}
