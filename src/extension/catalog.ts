// Loads the workspace catalog with the core loader, watches its files with
// VS Code's watcher, and shows what is wrong as diagnostics. Untrusted
// workspaces load nothing.
import * as vscode from 'vscode';
import { dirname, basename, isAbsolute } from 'node:path';
import { EMPTY_CATALOG, loadCatalog, logCatalogDiagnostics } from '../core/catalog/load';
import type { Catalog } from '../core/catalog/types';
import type { Logger } from '../core/host';
import type { ParseCache } from '../core/cache/parse-cache';
import { catalogFingerprint } from './catalog-fingerprint';
import { resolveCatalogPaths } from './catalog-paths';
import type { CatalogDiagnostics } from './diagnostics';
import type { ServerHost } from './server-host';
import type { Settings } from './settings';

export class CatalogController implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private loading: Promise<void> = Promise.resolve();
  private current: Catalog = EMPTY_CATALOG;
  private hasFiles = false;
  /** catalogFingerprint of what the last load read. */
  private loadedFingerprint: string | undefined;
  private readonly changed = new vscode.EventEmitter<Catalog>();
  /** Fires after every load (the definition provider bumps its version). */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly host: ServerHost,
    private readonly diagnostics: CatalogDiagnostics,
    private readonly settings: () => Settings,
    private readonly trusted: () => boolean,
    private readonly logger: Logger,
    private readonly parseCache?: ParseCache,
  ) {}

  get catalog(): Catalog {
    return this.current;
  }

  /** Whether any configured catalog file or folder exists (drives the "Create tools.yaml" welcome). */
  get exists(): boolean {
    return this.hasFiles;
  }

  /** Loads now; loads never overlap. */
  reload(): Promise<void> {
    return this.enqueue(() => this.load(false));
  }

  // A watcher's reload: skipped when the files are byte for byte what the last
  // load read. Checked inside the queue, so it compares with a finished load.
  private reloadIfChanged(): Promise<void> {
    return this.enqueue(() => this.load(true));
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.loading.catch(() => undefined).then(step);
    this.loading = next;
    return next;
  }

  private async load(onlyIfChanged: boolean): Promise<void> {
    const paths = resolveCatalogPaths(this.settings().catalogs, folders());
    // Taken before reading: an edit during the load makes the next event reload again.
    const fingerprint = await catalogFingerprint(paths.existing);
    if (onlyIfChanged && fingerprint === this.loadedFingerprint) {
      this.logger.debug('catalog files unchanged: not reloaded');
      return;
    }
    this.hasFiles = paths.existing.length > 0;
    await vscode.commands.executeCommand('setContext', 'mcc.hasCatalog', this.hasFiles);
    let catalog: Catalog;
    if (!this.trusted()) {
      catalog = EMPTY_CATALOG;
    } else {
      for (const m of paths.missing) if (m !== 'tools.yaml') this.logger.warn(`mcc.catalogs: '${m}' exists in no workspace folder`);
      catalog = paths.existing.length === 0 ? EMPTY_CATALOG : await loadCatalog(paths.existing, withResolver({ env: process.env, logger: this.logger, ...(this.parseCache ? { parseCache: this.parseCache } : {}) }, this.host));
      logCatalogDiagnostics(catalog, this.logger);
      this.logger.info(`catalog loaded: ${catalog.tools.size} tool(s) from ${catalog.files.length} file(s)`);
    }
    this.current = catalog;
    this.loadedFingerprint = fingerprint;
    this.diagnostics.show(catalog.diagnostics);
    this.host.setCatalog(catalog);
    this.changed.fire(catalog);
  }

  /**
   * (Re)creates the watchers for the configured paths; a change reloads,
   * debounced, and only when the files changed. A folder is watched as the
   * loader reads it: its own *.yaml / *.yml, not its subfolders.
   */
  watch(): void {
    this.disposeWatchers();
    const entries = this.settings().catalogs;
    const patterns: vscode.RelativePattern[] = [];
    for (const entry of entries) {
      if (isAbsolute(entry)) {
        patterns.push(new vscode.RelativePattern(vscode.Uri.file(dirname(entry)), basename(entry)));
        patterns.push(new vscode.RelativePattern(vscode.Uri.file(entry), '*.{yaml,yml}'));
      } else {
        for (const f of vscode.workspace.workspaceFolders ?? []) {
          patterns.push(new vscode.RelativePattern(f, entry));
          patterns.push(new vscode.RelativePattern(f, `${entry.replace(/\/+$/, '')}/*.{yaml,yml}`));
        }
      }
    }
    for (const p of patterns) {
      const w = vscode.workspace.createFileSystemWatcher(p);
      const schedule = (): void => this.schedule();
      this.watchers.push(w, w.onDidChange(schedule), w.onDidCreate(schedule), w.onDidDelete(schedule));
    }
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reloadIfChanged().catch((e: unknown) => this.logger.error(`catalog reload failed: ${String(e)}`));
    }, 250);
  }

  private disposeWatchers(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.disposeWatchers();
    this.changed.dispose();
  }
}

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function withResolver<T extends object>(opts: T, host: ServerHost): T & { fnResolver?: NonNullable<ServerHost['fnResolver']> } {
  const r = host.fnResolver;
  return r ? { ...opts, fnResolver: r } : opts;
}
