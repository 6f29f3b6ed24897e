// Editor terminals fed by run events through a Pseudoterminal: the masked
// command, the live output, exit code and duration. Ctrl+C cancels the
// runs shown in that terminal.
import * as vscode from 'vscode';
import type { RunEvent, RunEventSink } from '../core/tool-run/contract';
import { formatCancelRequest, formatExited, formatOutput, formatStarted, terminalName } from './terminal-format';
import type { Settings } from './settings';

class RunPty implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  private readonly closer = new vscode.EventEmitter<void>();
  readonly onDidWrite = this.writer.event;
  readonly onDidClose = this.closer.event;
  private opened = false;
  // Writes before open() would be lost, so they wait here.
  private backlog: string[] = [];
  closed = false;
  readonly runs = new Set<string>();

  constructor(
    private readonly onInterrupt: (runs: string[]) => void,
    private readonly onClosed: () => void,
  ) {}

  open(): void {
    this.opened = true;
    for (const t of this.backlog) this.writer.fire(t);
    this.backlog = [];
  }

  close(): void {
    this.closed = true;
    this.onClosed();
  }

  handleInput(data: string): void {
    if (data.includes('\x03') && this.runs.size > 0) {
      this.write(formatCancelRequest());
      this.onInterrupt([...this.runs]);
    }
  }

  write(text: string): void {
    if (this.opened) this.writer.fire(text);
    else this.backlog.push(text);
  }

  dispose(): void {
    this.writer.dispose();
    this.closer.dispose();
  }
}

interface Entry {
  pty: RunPty;
  terminal: vscode.Terminal;
}

interface RunState {
  entry: Entry;
  mode: string;
  atLineStart: boolean;
}

export class Terminals implements RunEventSink, vscode.Disposable {
  private shared: Entry | undefined;
  private readonly runs = new Map<string, RunState>();
  private readonly all = new Set<Entry>();

  constructor(
    private readonly settings: () => Settings,
    private readonly cancel: (runId: string) => void,
  ) {}

  emit(e: RunEvent): void {
    if (e.type === 'started') return this.started(e);
    const run = this.runs.get(e.runId);
    if (!run) return;
    if (e.type === 'output') {
      if (e.data === '') return;
      run.entry.pty.write(formatOutput(e, run.mode));
      run.atLineStart = /[\r\n]$/.test(e.data);
      return;
    }
    run.entry.pty.write(formatExited(e, !run.atLineStart));
    run.entry.pty.runs.delete(e.runId);
    this.runs.delete(e.runId);
    if (e.code !== 0 && this.settings().reveal === 'onError') run.entry.terminal.show(true);
  }

  private started(e: Extract<RunEvent, { type: 'started' }>): void {
    const s = this.settings();
    const entry = s.perRun ? this.create(terminalName(true, e.toolKey)) : (this.shared ??= this.create(terminalName(false, e.toolKey)));
    entry.pty.runs.add(e.runId);
    this.runs.set(e.runId, { entry, mode: e.mode, atLineStart: true });
    entry.pty.write(formatStarted(e));
    if (s.reveal === 'always') entry.terminal.show(true);
  }

  private create(name: string): Entry {
    const pty: RunPty = new RunPty(
      (runs) => runs.forEach((id) => this.cancel(id)),
      () => this.forget(entry),
    );
    const terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('tools'), isTransient: true });
    const entry: Entry = { pty, terminal };
    this.all.add(entry);
    return entry;
  }

  // The user closed the terminal: later runs get a new one; its runs go on unseen.
  private forget(entry: Entry): void {
    this.all.delete(entry);
    if (this.shared === entry) this.shared = undefined;
    for (const [id, r] of this.runs) if (r.entry === entry) this.runs.delete(id);
    entry.pty.dispose();
  }

  dispose(): void {
    for (const e of [...this.all]) {
      e.terminal.dispose();
      e.pty.dispose();
    }
    this.all.clear();
    this.runs.clear();
    this.shared = undefined;
  }
}
