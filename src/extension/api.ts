// What the extension exports (vscode.extensions.getExtension('c-research.mcc-vscode').exports),
// for the end-to-end tests and for other extensions:
//   ready          resolves once the server has started and the catalog is loaded
//                  (rejects when the server could not start)
//   serverUrl()    the MCP endpoint (http://127.0.0.1:PORT/mcp), undefined while stopped
//   sessionKey     this workspace's own session key (the X-MCC-Session-Key VS Code sends)
//   owner          the owner principal the editor's own calls run as
//   store          the live session store (replaced on restart: read it each time)
//   runtime        the live core Runtime (same)
//   reloadCatalog  reloads the workspace catalog now
//   sweep()        removes expired buckets now; resolves to how many
// The bearer token is deliberately not exported.
import type { Principal } from '../core/identity';
import type { Runtime } from '../core/runtime';
import type { SessionStoreApi } from '../core/session/types';

import type { StartupTimes } from './startup-timing';

export interface MccApi {
  readonly ready: Promise<void>;
  serverUrl(): string | undefined;
  readonly sessionKey: string;
  readonly owner: Principal;
  readonly store: SessionStoreApi | undefined;
  readonly runtime: Runtime | undefined;
  /** How long activation took to listen and to be ready (startup-timing.ts). */
  readonly startup: StartupTimes;
  reloadCatalog(): Promise<void>;
  sweep(): Promise<number>;
}
