// Server-level commands: restart, logs, the status menu, the last minute's
// metrics and the connection config for another MCP client.
import * as vscode from 'vscode';
import { connectionConfig } from './connection';
import type { ServerHost } from './server-host';
import { showStatusMenu, STATUS_MENU_COMMAND } from './status-bar';
import type { CallStats } from './call-stats-model';
import { MetricsDocument } from './metrics-document';
import { SHOW_METRICS_COMMAND } from './metrics-text';

export function registerServerCommands(host: ServerHost, log: vscode.LogOutputChannel, stats: CallStats): vscode.Disposable[] {
  const metrics = new MetricsDocument(stats);
  return [
    metrics,
    vscode.commands.registerCommand(SHOW_METRICS_COMMAND, () => metrics.show()),
    vscode.commands.registerCommand('mcc.restartServer', async () => {
      try {
        await host.restart();
        void vscode.window.setStatusBarMessage(`MCC: server restarted on ${host.url ?? '?'}`, 3000);
      } catch (e) {
        void vscode.window.showErrorMessage(`MCC: the server failed to start: ${e instanceof Error ? e.message : String(e)}`, 'Show Logs').then((a) => {
          if (a) log.show();
        });
      }
    }),
    vscode.commands.registerCommand('mcc.showLogs', () => log.show()),
    vscode.commands.registerCommand(STATUS_MENU_COMMAND, () => showStatusMenu(stats)),
    vscode.commands.registerCommand('mcc.copyConnectionConfig', async () => {
      const url = host.url;
      if (!url) return void vscode.window.showErrorMessage('MCC: the server is not running.');
      await vscode.env.clipboard.writeText(connectionConfig(url, host.token));
      void vscode.window.showInformationMessage(
        'MCC: connection config copied (URL and bearer token). The token changes when the window reloads; keep it private.',
      );
    }),
  ];
}
