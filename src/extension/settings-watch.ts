// What a change of settings or workspace folders does while the extension
// runs: the expose mode applies at once, catalogs are watched and reloaded,
// and the settings nothing live can take restart the server.
import * as vscode from 'vscode';
import type { Logger } from '../core/host';
import type { CatalogController } from './catalog';
import type { ServerHost } from './server-host';
import type { ServerLifecycle } from './server-lifecycle';
import { SERVER_SETTINGS, type Settings } from './settings';

export function watchSettings(server: ServerHost, catalog: CatalogController, lifecycle: ServerLifecycle, settings: () => Settings, logger: Logger): vscode.Disposable[] {
  const reloadCatalog = (): void => {
    catalog.watch();
    void catalog.reload();
  };
  return [
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('mcc.tools.expose')) server.runtime?.catalog.setExpose(settings().expose);
      if (e.affectsConfiguration('mcc.catalogs')) reloadCatalog();
      if (SERVER_SETTINGS.some((s) => e.affectsConfiguration(s))) {
        logger.info('server settings changed: restarting');
        // Nothing here can be applied to a live store or authenticator, so the
        // server restarts (on the same port); reaching 'running' bumps the
        // definition's version, so VS Code reconnects.
        lifecycle.restart('restart');
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(reloadCatalog),
  ];
}
