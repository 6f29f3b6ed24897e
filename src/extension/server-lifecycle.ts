// When the server starts and what follows: the catalog is loaded whenever
// the server reaches 'running' (first start, restart, a retry after a failed
// start), so a failed first start does not leave it unloaded for good; and a
// start or restart that fails still loads the catalog, so its diagnostics show.
import type * as vscode from 'vscode';
import type { Logger } from '../core/host';
import type { CatalogController } from './catalog';
import type { ServerHost } from './server-host';
import type { StartupTiming } from './startup-timing';

export class ServerLifecycle implements vscode.Disposable {
  private loaded: Promise<void> | undefined;
  private readonly onState: { dispose(): void };
  /** The first start, with its catalog loaded. */
  readonly ready: Promise<void>;

  constructor(
    private readonly server: ServerHost,
    private readonly catalog: CatalogController,
    private readonly logger: Logger,
    timing: StartupTiming,
  ) {
    this.onState = server.onDidChangeState((s) => {
      if (s !== 'running') return;
      timing.listening();
      this.loadCatalog().catch((e: unknown) => logger.error(`catalog load failed: ${String(e)}`));
    });
    this.ready = this.startWith(() => server.start());
    void this.ready.then(() => timing.ready(), () => undefined);
  }

  /** Restarts the server (settings changed, trust granted); a failure is logged as `what` failed. */
  restart(what: string): void {
    void this.startWith(() => this.server.restart()).catch((e: unknown) => this.logger.error(`${what} failed: ${String(e)}`));
  }

  dispose(): void {
    this.onState.dispose();
  }

  private loadCatalog(): Promise<void> {
    return (this.loaded = this.catalog.reload());
  }

  private async startWith(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (e) {
      await this.loadCatalog().catch(() => undefined);
      throw e;
    }
    await this.loaded;
  }
}
