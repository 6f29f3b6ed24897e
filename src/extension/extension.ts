// Entry point: wires the feature objects together. Each concept lives in
// its own file; everything disposable goes into context.subscriptions.
import * as vscode from 'vscode';
import { isAbsolute, join } from 'node:path';
import type { MccApi } from './api';
import { CallStats } from './call-stats-model';
import { CatalogController } from './catalog';
import { registerServerCommands } from './commands';
import { DefinitionProvider } from './definition-provider';
import { CatalogDiagnostics } from './diagnostics';
import { channelLogger, formatAudit } from './log';
import { MementoStorage } from './memento-storage';
import { ServerHost } from './server-host';
import { registerSessionCommands } from './session-commands';
import { SessionsTree } from './sessions-tree';
import { readSettings, type Settings } from './settings';
import { ServerLifecycle } from './server-lifecycle';
import { watchSettings } from './settings-watch';
import { StatusBar } from './status-bar';
import { Terminals } from './terminals';
import { registerToolCommands } from './tool-commands';
import { ToolsTree } from './tools-tree';
import { Trust } from './trust';
import { ValueDocuments } from './value-documents';
import { workspaceSessionKey } from './workspace-key';
import { StartupTiming } from './startup-timing';
import { openParseCache } from '../core/cache/parse-cache';
import type { Logger } from '../core/host';

let host: ServerHost | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<MccApi> {
  const activatedAt = performance.now();
  const sub = (...d: vscode.Disposable[]): void => void context.subscriptions.push(...d);
  const log = vscode.window.createOutputChannel('MCC', { log: true });
  const logger = channelLogger(log);
  const timing = new StartupTiming(logger, activatedAt);
  const settings = (): Settings => readSettings(vscode.workspace.getConfiguration('mcc'));
  const trust = new Trust();
  const sessionKey = await workspaceSessionKey(context.workspaceState);
  sub(log, trust);

  const terminals = new Terminals(settings, (runId) => host?.runtime?.running.cancel(runId));
  // Every call's audit entry goes to the log and to the last minute's metrics.
  const stats = new CallStats();
  const server = (host = serverHostOf(context, settings, { log, logger, stats }, trust, terminals));
  const diagnostics = new CatalogDiagnostics();
  // Parsed catalogs kept between sessions of the editor (a large catalog's YAML is read once).
  const parseCache = openParseCache(process.env, context.globalStorageUri.fsPath);
  const catalog = new CatalogController(server, diagnostics, settings, () => trust.trusted, logger, parseCache);
  sub(terminals, diagnostics, catalog);

  catalog.watch();
  const lifecycle = new ServerLifecycle(server, catalog, logger, timing);
  const ready = lifecycle.ready;
  sub(lifecycle);
  ready.catch((e: unknown) => {
    void vscode.window.showErrorMessage(`MCC: the MCP server failed to start: ${e instanceof Error ? e.message : String(e)}`, 'Show Logs').then((a) => {
      if (a) log.show();
    });
  });

  const definitions = new DefinitionProvider(server, sessionKey, ready);
  sub(definitions, definitions.register(), catalog.onDidChange(() => definitions.bump()));
  sub(toDisposable(server.onDidChangeState((s) => s === 'running' && definitions.bump())));
  // The expose mode changes which tools are listed: a new version, so VS Code never keeps a stale list.
  sub(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('mcc.tools.expose') && definitions.bump()));

  // The identity keys shown (`tools`) follow the catalog, so a reload refreshes the view too.
  const sessions = new SessionsTree(server, sessionKey, () => trust.trusted, catalog.onDidChange);
  const tools = new ToolsTree(catalog, () => trust.trusted, () => settings().sandbox, workspaceFolders);
  const status = new StatusBar(server, catalog, () => trust.trusted);
  const documents = new ValueDocuments(server);
  sub(sessions, tools, status, documents);
  sub(...registerServerCommands(server, log, stats), ...registerSessionCommands(server, sessions, sessionKey, documents), ...registerToolCommands(server, catalog, sessionKey));

  sub(
    trust.onDidGrant(() => {
      logger.info('workspace trusted: loading its tools');
      sessions.updateMessage();
      // A restart also reads the users file, which is skipped while untrusted.
      lifecycle.restart('start after trust');
    }),
    ...watchSettings(server, catalog, lifecycle, settings, logger),
  );

  return apiOf(server, catalog, ready, sessionKey, timing);
}

/** Stops the server: cancels running tools and awaits pending store writes. */
export async function deactivate(): Promise<void> {
  const h = host;
  host = undefined;
  await h?.dispose();
}

/** The embedded server over this workspace's state, its terminals, its trust and its log. */
function serverHostOf(
  context: vscode.ExtensionContext,
  settings: () => Settings,
  { log, logger, stats }: { log: vscode.LogOutputChannel; logger: Logger; stats: CallStats },
  trust: Trust,
  terminals: Terminals,
): ServerHost {
  return new ServerHost({
    storage: new MementoStorage(context.workspaceState, logger),
    settings,
    logger,
    events: terminals,
    onAudit: (a) => {
      log.info(formatAudit(a));
      stats.record(a);
    },
    gate: trust.gate,
    warn: (m) => void vscode.window.showWarningMessage(m),
    resolvePath: (p) => (isAbsolute(p) ? p : join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd(), p)),
    mayReadWorkspaceFiles: () => trust.trusted,
    workspaceFolders,
  });
}

/** The workspace's folders on disk (a remote or virtual folder has no path a sandbox could show). */
function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/** What tests and other extensions read of MCC (api.ts). */
function apiOf(server: ServerHost, catalog: CatalogController, ready: Promise<void>, sessionKey: string, timing: StartupTiming): MccApi {
  return {
    ready,
    serverUrl: () => server.url,
    sessionKey,
    get owner() {
      return server.owner;
    },
    get store() {
      return server.store;
    },
    get runtime() {
      return server.runtime;
    },
    startup: timing.times,
    reloadCatalog: () => catalog.reload(),
    sweep: async () => (await server.store?.sweep()) ?? 0,
  };
}

function toDisposable(d: { dispose(): void }): vscode.Disposable {
  return { dispose: () => d.dispose() };
}
