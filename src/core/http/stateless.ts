// `mcc serve --stateless`: MCP over Streamable HTTP without server-side
// sessions (the SDK's stateless mode), so any instance behind a load
// balancer can answer any request. Each POST gets a fresh server and
// transport; the caller's bucket is named by X-MCC-Session-Key within the
// caller's own user, which is therefore required, and anonymous callers
// (who all share one user name) are refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import { createServer } from '../server/create-server';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Why a request cannot be served statelessly, or undefined when it can. Run after authentication. */
export function statelessRefusal(method: string | undefined, principal: Principal): Refusal | undefined {
  if (principal.anonymous) {
    return {
      status: 401,
      message: "Unauthorized: this server is stateless (--stateless) and serves only callers with a token, since each request names its bucket with X-MCC-Session-Key within the caller's user",
      headers: { 'WWW-Authenticate': 'Bearer realm="mcc", error="invalid_token", error_description="a token is required in stateless mode"' },
    };
  }
  if (method !== 'POST') {
    return { status: 405, message: 'this server is stateless (--stateless): send MCP messages with POST; there is no stream to GET or session to DELETE', headers: { Allow: 'POST' } };
  }
  return undefined;
}

/** A 2025-11-25 request without its bucket key; a 2026-07-28 caller may name its bucket with a session handle instead. */
export function missingKeyRefusal(sessionKey: string | string[] | undefined, modern: boolean): Refusal | undefined {
  if (sessionKey === undefined && !modern) {
    return { status: 400, message: 'X-MCC-Session-Key is required: this server is stateless (--stateless), so each request names its session bucket with this header (1-128 letters, digits, ".", "_", ":" or "-")' };
  }
  return undefined;
}

/** Serves one JSON-RPC POST with a server and transport that live as long as the request. */
export async function serveStateless(req: IncomingMessage, res: ServerResponse, body: unknown, o: { runtime: Runtime; principal: Principal }): Promise<void> {
  const server = createServer({ runtime: o.runtime, principal: o.principal });
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
