// resources/subscribe for one connection: mcc://session (the bucket of the
// session key the subscription was made with) and mcc://tools/{key}.
// Subscribers hear notifications/resources/updated when their bucket changes
// (set, delete, clear, write-back, expiry — not a mere touch) and, for every
// subscribed resource, when the catalog is reloaded.
import type { McpServer } from '@modelcontextprotocol/server';

import { bucketIdOf } from '../../session/bucket-id';
import type { StoreChange } from '../../session/types';
import type { ConnectionContext } from '../connection-context';
import { resourceNotFound } from './not-found';
import { SESSION_URI } from './session-resource';
import { TOOL_URI_PREFIX } from './tool-resources';

export class ResourceSubscriptions {
  /** Subscribed URI -> the bucket it watches (mcc://session) or '' (tools). */
  private readonly subscribed = new Map<string, string>();

  constructor(
    private readonly server: McpServer,
    private readonly ctx: ConnectionContext,
  ) {
    // Before connect: the capability is part of the initialize answer.
    server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
    server.server.setRequestHandler('resources/subscribe', (req, extra) => {
      this.subscribe(req.params.uri, () => ctx.bucketKeyFor(extra));
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', (req) => {
      this.subscribed.delete(req.params.uri);
      return {};
    });
  }

  private subscribe(uri: string, sessionKey: () => string): void {
    if (uri === SESSION_URI) {
      this.subscribed.set(uri, bucketIdOf(this.ctx.principal.user, sessionKey()));
      return;
    }
    const key = uri.startsWith(TOOL_URI_PREFIX) ? decodeURIComponent(uri.slice(TOOL_URI_PREFIX.length)) : undefined;
    if (key === undefined || !this.ctx.runtime.catalog.accessibleTools(this.ctx.principal).some((t) => t.key === key)) throw resourceNotFound(uri);
    this.subscribed.set(uri, '');
  }

  storeChanged(change: StoreChange): void {
    const bucket = this.subscribed.get(SESSION_URI);
    if (bucket === undefined || change.reason === 'touch') return;
    // '' announces a whole store (re)loaded.
    if (change.bucketId === bucket || change.bucketId === '') this.updated(SESSION_URI);
  }

  /** A reload may change every tool, and the caller's `tools` identity key. */
  catalogChanged(): void {
    for (const uri of this.subscribed.keys()) this.updated(uri);
  }

  private updated(uri: string): void {
    if (!this.server.isConnected()) return;
    this.server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  }
}
