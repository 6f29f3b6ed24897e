// Loads the catalog from its paths, logs what is wrong with it, and reloads
// when a file changes (debounced), for hosts without their own watcher.
import { watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';
import { loadCatalog, logCatalogDiagnostics } from './catalog/load';
import { globBase, isGlob } from './catalog/path-glob';
import type { Catalog } from './catalog/types';
import type { FnResolver } from './catalog/fn-resolver';
import { type Logger, silentLogger } from './host';
import type { ParseCache } from './cache/parse-cache';

export interface CatalogSourceOptions {
  logger?: Logger;
  fnResolver?: FnResolver;
  env?: NodeJS.ProcessEnv;
  parseCache?: ParseCache;
  onLoad: (catalog: Catalog) => void;
  debounceMs?: number;
}

export class CatalogSource {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private loading: Promise<Catalog> | undefined;
  private readonly logger: Logger;

  constructor(
    private readonly paths: string[],
    private readonly opts: CatalogSourceOptions,
  ) {
    this.logger = opts.logger ?? silentLogger;
  }

  async load(): Promise<Catalog> {
    // Reloads never overlap: a change during a load waits for it.
    const previous = this.loading;
    const next = (async () => {
      await previous?.catch(() => undefined);
      const catalog = await loadCatalog(this.paths.map((p) => resolve(p)), {
        ...(this.opts.env ? { env: this.opts.env } : {}),
        ...(this.opts.fnResolver ? { fnResolver: this.opts.fnResolver } : {}),
        ...(this.opts.parseCache ? { parseCache: this.opts.parseCache } : {}),
        logger: this.logger,
      });
      logCatalogDiagnostics(catalog, this.logger);
      this.opts.onLoad(catalog);
      return catalog;
    })();
    this.loading = next;
    return next;
  }

  /** Watches every catalog path (folders for new files) and reloads on change. */
  watch(): void {
    const targets = new Set<string>();
    const recursive = new Set<string>();
    for (const p of this.paths) {
      if (isGlob(p)) {
        // A pattern's files may appear anywhere under its fixed part.
        targets.add(globBase(p));
        if (p.includes('**')) recursive.add(globBase(p));
        continue;
      }
      const abs = resolve(p);
      try {
        targets.add(statSync(abs).isDirectory() ? abs : dirname(abs));
      } catch {
        targets.add(dirname(abs));
      }
    }
    for (const t of targets) {
      try {
        this.watchers.push(watch(t, { persistent: false, recursive: recursive.has(t) }, () => this.schedule()));
      } catch (e) {
        this.logger.warn(`cannot watch ${t}: ${(e as Error).message}`);
      }
    }
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.load().then(
        (c) => this.logger.info(`catalog reloaded: ${c.tools.size} tools`),
        (e: unknown) => this.logger.error(`catalog reload failed: ${String(e)}`),
      );
    }, this.opts.debounceMs ?? 200);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}
