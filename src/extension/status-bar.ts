// The status bar item (state, port, tools, sessions) and its menu (with the
// last minute's calls per tool).
import * as vscode from 'vscode';
import type { CatalogController } from './catalog';
import type { ServerHost } from './server-host';
import { STATUS_MENU, statusText } from './status-text';
import type { CallStats } from './call-stats-model';
import { metricsMenuItems } from './metrics-text';

export const STATUS_MENU_COMMAND = 'mcc.statusMenu';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('mcc.status', vscode.StatusBarAlignment.Right, 100);
  private readonly subs: vscode.Disposable[] = [];
  private generation = 0;

  constructor(
    private readonly host: ServerHost,
    private readonly catalog: CatalogController,
    private readonly trusted: () => boolean,
  ) {
    this.item.name = 'MCC';
    this.item.command = STATUS_MENU_COMMAND;
    const update = (): void => this.update();
    this.subs.push(host.onDidChangeState(update), host.onDidChangeStore(update), catalog.onDidChange(update));
    this.update();
    this.item.show();
  }

  update(): void {
    void this.render();
  }

  private async render(): Promise<void> {
    // The store is read asynchronously: only the latest update may paint.
    const generation = ++this.generation;
    const sessions = await this.sessionCount();
    if (generation !== this.generation) return;
    const { text, tooltip } = statusText({
      state: this.host.state,
      ...(this.host.port !== undefined ? { port: this.host.port } : {}),
      tools: this.catalog.catalog.tools.size,
      sessions,
      trusted: this.trusted(),
      ...(this.host.lastError ? { error: this.host.lastError } : {}),
    });
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = this.host.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  private async sessionCount(): Promise<number> {
    try {
      return (await this.host.store?.list())?.length ?? 0;
    } catch {
      return 0;
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.item.dispose();
  }
}

/**
 * The server actions, with the last minute's calls per tool (each opens the
 * metrics table) before the restart, which stays last: Show Logs is still
 * the first, preselected choice.
 */
export async function showStatusMenu(stats: CallStats): Promise<void> {
  type Item = vscode.QuickPickItem & { command?: string };
  const section = (label: string): Item => ({ label, kind: vscode.QuickPickItemKind.Separator });
  const restart = STATUS_MENU[STATUS_MENU.length - 1];
  const items: Item[] = [...STATUS_MENU.slice(0, -1), section('Calls in the last minute'), ...metricsMenuItems(stats.snapshot()), section(''), restart];
  const picked = await vscode.window.showQuickPick(items, { title: 'MCC', placeHolder: 'MCP server actions' });
  if (picked?.command) await vscode.commands.executeCommand(picked.command);
}
