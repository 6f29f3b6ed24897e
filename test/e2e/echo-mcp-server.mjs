// A minimal Streamable HTTP MCP server with one `echo` tool, run inside the
// test process so the probe extension has something real to register.
// It records every request so a test can check what VS Code's client sent.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export async function startEchoMcpServer({ token = randomUUID() } = {}) {
  const transports = new Map(); // Mcp-Session-Id -> transport
  const requests = [];
  const calls = [];

  function newServer() {
    const server = new McpServer({ name: 'probe-echo', version: '0.0.1' });
    server.registerTool('echo', {
      description: 'Echoes the given text back.',
      inputSchema: { text: z.string().describe('Text to echo') },
    }, async ({ text }, extra) => {
      calls.push({ text, sessionId: extra.sessionId });
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    });
    return server;
  }

  const httpServer = http.createServer(async (req, res) => {
    requests.push({ method: req.method, url: req.url, userAgent: req.headers['user-agent'], auth: req.headers.authorization === `Bearer ${token}`, sessionId: req.headers['mcp-session-id'] });
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    try {
      let body;
      if (req.method === 'POST') {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      }
      const sid = req.headers['mcp-session-id'];
      let transport = sid && transports.get(sid);
      if (!transport) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
  return {
    url,
    token,
    requests,
    calls,
    async close() {
      for (const t of transports.values()) await t.close().catch(() => {});
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}
