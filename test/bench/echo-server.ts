// The floor for the store's round trip: a bare SDK server with one echo tool
// over Streamable HTTP (stateful, as `mcc serve` is by default), run as its
// own process like `mcc serve`. Prints {"url"} on stdout once it listens.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const transports = new Map<string, StreamableHTTPServerTransport>();

function newServer(): McpServer {
  const server = new McpServer({ name: 'bench-echo', version: '0.0.1' });
  server.registerTool('echo', { description: 'Echoes the text.', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

const http = createServer((req, res) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!transport) {
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id: string): void => {
          transports.set(id, t);
        },
      });
      await newServer().connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, body);
  })().catch((e: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e));
  });
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
