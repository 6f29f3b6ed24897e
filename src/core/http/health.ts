// Health answers for load balancers and orchestrators, on the MCP listener:
// GET /healthz (live: 200 whenever the process answers) and GET /readyz
// (200 once a catalog is loaded and the session store answers; else 503 and
// a short reason). Probes carry no token and send whatever Host their
// network gives them, so these two paths skip authentication and the
// Host/Origin check; in exchange they say nothing but the status and one of
// the fixed reasons below: no catalog, user, path or store address.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { silentLogger, type Logger } from '../host';
import type { SessionStoreApi } from '../session/types';

/** Resolves undefined when ready, else the reason (one of REASONS). */
export type Readiness = () => Promise<string | undefined>;

export const REASONS = {
  catalog: 'catalog not loaded',
  store: 'session store unreachable',
  slowStore: 'session store did not answer in time',
  stopping: 'shutting down',
} as const;

const PATHS = new Set(['/healthz', '/readyz']);
// A hung store must not hang the probe: a checker waits a few seconds at most.
const STORE_TIMEOUT_MS = 2000;

export function isHealthPath(url: string | undefined): boolean {
  return PATHS.has((url ?? '/').split('?')[0]);
}

export async function answerHealth(req: IncomingMessage, res: ServerResponse, o: { ready: Readiness; accepting: boolean }): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(req, res, 405, { status: 'method not allowed' }, { Allow: 'GET, HEAD' });
  if ((req.url ?? '').split('?')[0] === '/healthz') return send(req, res, 200, { status: 'ok' });
  const reason = o.accepting ? await o.ready() : REASONS.stopping;
  if (reason === undefined) return send(req, res, 200, { status: 'ready' });
  send(req, res, 503, { status: 'unavailable', reason });
}

// Every real bucket id has one ':' between its parts (bucket-id.ts); this one has none.
const PROBE_ID = '(ping)';

/**
 * Ready when `catalogLoaded()` and the store answers, in time, one cheap
 * read that reaches its backend (a bucket no user can have); changes of
 * state are logged, the store's error with them.
 */
export function readinessOf(catalogLoaded: () => boolean, store: Pick<SessionStoreApi, 'bucket'>, logger: Logger = silentLogger): Readiness {
  let last: string | undefined;
  const note = (reason: string | undefined, detail?: string): string | undefined => {
    if (reason !== last) {
      if (reason === undefined) logger.info('ready again');
      else logger.warn(`not ready: ${reason}${detail ? ` (${detail})` : ''}`);
    }
    last = reason;
    return reason;
  };
  return async () => {
    if (!catalogLoaded()) return note(REASONS.catalog);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(REASONS.slowStore), STORE_TIMEOUT_MS);
    });
    try {
      const answer = await Promise.race([store.bucket(PROBE_ID).then(() => undefined), late]);
      return note(answer);
    } catch (e) {
      return note(REASONS.store, e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
  };
}

function send(req: IncomingMessage, res: ServerResponse, status: number, body: Record<string, string>, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
}
