// MCP 2026-07-28 over Streamable HTTP, on the same /mcp as 2025-11-25: a
// request whose `_meta` claims the new revision is served by the SDK's
// per-request handler (server/discover, resultType, list cache hints,
// subscriptions/listen, input-required results), with a server built for
// that one request and the caller's principal. No MCP session exists, so a
// caller keeps its variables with a session handle (session-handles.ts) or
// X-MCC-Session-Key; any instance can answer any request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest, PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler, toWebRequest, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import type { Logger } from '../host';
import { createServer } from '../server/create-server';

export class ModernEndpoint {
  private readonly handler: McpHttpHandler;
  private readonly node: NodeMcpRequestHandler;
  private readonly unwatch: () => void;

  constructor(runtime: Runtime, logger: Logger) {
    const onerror = (e: Error): void => logger.error(`MCP 2026-07-28 request failed: ${e.stack ?? e.message}`);
    this.handler = createMcpHandler((rc) => createServer({ runtime, principal: principalOf(rc.authInfo), modern: true }), { legacy: 'reject', onerror });
    this.node = toNodeHandler(this.handler, { onerror });
    // Listeners of subscriptions/listen hear every catalog change; what each may see is decided when it lists again.
    const changed = runtime.catalog.onDidChange(() => {
      this.handler.notify.toolsChanged();
      this.handler.notify.resourcesChanged();
    });
    this.unwatch = () => changed.dispose();
  }

  /**
   * Whether a POST is a 2026-07-28 request, the SDK deciding; today's
   * traffic is told apart cheaply first: it names its MCP session, or
   * neither its body nor its MCP-Protocol-Version header claims a newer
   * revision (an initialize request has no header yet).
   */
  static async claims(req: IncomingMessage, body: unknown): Promise<boolean> {
    if (req.headers['mcp-session-id'] !== undefined) return false;
    const version = req.headers['mcp-protocol-version'];
    const legacyHeader = version === undefined || (typeof version === 'string' && LEGACY_VERSIONS.has(version));
    if (legacyHeader && !claimsModern(body)) return false;
    return !(await isLegacyRequest(await toWebRequest(req, body), body));
  }

  handle(principal: Principal, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const auth: AuthInfo = { token: '', clientId: principal.user, scopes: [], extra: { principal } };
    return this.node(Object.assign(req, { auth }), res, body);
  }

  async close(): Promise<void> {
    this.unwatch();
    await this.handler.close();
  }
}

// The revisions of the initialize handshake (2025-11-25 and before).
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

function claimsModern(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

// The router authenticated the request and attached its principal; nothing else reaches the factory.
function principalOf(auth: AuthInfo | undefined): Principal {
  const principal = auth?.extra?.principal as Principal | undefined;
  if (!principal) throw new Error('a 2026-07-28 request reached the server without its principal');
  return principal;
}
