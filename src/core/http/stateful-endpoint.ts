// Stateful Streamable HTTP: an initialize request opens an MCP session (its
// own McpServer and transport, bound to the caller's principal); every other
// request names its session with Mcp-Session-Id. Unknown, ended and other
// principals' sessions are all 404, as the transport spec says.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import type { Runtime } from '../runtime';
import type { Principal } from '../identity';
import { createServer } from '../server/create-server';
import { BoundedEventStore } from './event-store';
import { refusal, sendRefusal, SESSION_NOT_FOUND } from './json-rpc-errors';
import type { McpSessionRegistry } from './mcp-sessions';

/** How long a client waits before it resumes a broken SSE stream (the SSE `retry` field). */
export const SSE_RETRY_MS = 2000;

export class StatefulEndpoint {
  constructor(
    private readonly runtime: Runtime,
    private readonly sessions: McpSessionRegistry,
  ) {}

  async handle(principal: Principal, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sid = header(req, 'mcp-session-id');
    if (sid !== undefined) {
      const session = this.sessions.get(sid, principal);
      if (!session) return sendRefusal(res, refusal(404, 'Session not found: it ended or never existed; initialize a new one', SESSION_NOT_FOUND));
      this.sessions.track(session, res, req.method);
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitialize(body)) {
      return sendRefusal(res, refusal(400, 'Bad Request: no Mcp-Session-Id; send an initialize request first (without one)'));
    }
    const full = this.sessions.admit(principal);
    if (full) return sendRefusal(res, full);
    await this.open(principal, req, res, body);
  }

  private async open(principal: Principal, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const events = new BoundedEventStore();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomBytes(24).toString('base64url'),
      eventStore: events,
      retryInterval: SSE_RETRY_MS,
      // Counted from the initialize request on, so it is busy until that answer is out.
      onsessioninitialized: (id) => this.sessions.track(this.sessions.add({ id, principal, server, transport, events }), res, 'POST'),
      onsessionclosed: (id) => this.sessions.remove(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.remove(transport.sessionId);
    };
    const server = createServer({ runtime: this.runtime, principal });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((m) => isInitializeRequest(m));
  return isInitializeRequest(body);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
