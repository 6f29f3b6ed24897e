// Server-level commands: restart, logs, the status menu and the connection
// config for another MCP client.
import * as vscode from 'vscode';
import { connectionConfig } from './connection';
import type { ServerHost } from './server-host';
import { showStatusMenu, STATUS_MENU_COMMAND } from './status-bar';

export function registerServerCommands(host: ServerHost, log: vscode.LogOutputChannel): vscode.Disposable[] {
  return [
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
    vscode.commands.registerCommand(STATUS_MENU_COMMAND, () => showStatusMenu()),
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
