// **MCC: Show Metrics**: the last minute's calls per tool as a read-only
// Markdown document (a content provider's documents cannot be edited). Each
// run of the command shows the numbers of that moment.
import * as vscode from 'vscode';
import type { CallStats } from './call-stats-model';
import { metricsMarkdown } from './metrics-text';

export const METRICS_SCHEME = 'mcc-metrics';
const URI = vscode.Uri.from({ scheme: METRICS_SCHEME, path: '/MCC Metrics.md' });

export class MetricsDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(private readonly stats: CallStats) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(METRICS_SCHEME, this);
  }

  provideTextDocumentContent(): string {
    return metricsMarkdown(this.stats.snapshot(), new Date());
  }

  async show(): Promise<void> {
    // An open tab is told to read again; a new one reads now.
    this.changed.fire(URI);
    let doc = await vscode.workspace.openTextDocument(URI);
    if (doc.languageId !== 'markdown') doc = await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
