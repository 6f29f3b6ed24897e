// The floor for the store's round trip: a bare SDK server with one echo tool
// over Streamable HTTP (stateful, as `mcc serve` is by default), run as its
// own process like `mcc serve`. Prints {"url"} on stdout once it listens.
// `v2` (the default): the SDK the product runs on (@modelcontextprotocol/server
// and /node); `v1`: the older @modelcontextprotocol/sdk, for comparison.
// `--redis <port>`: each call also makes one Redis round trip (GET), the floor
// of the Redis store. `--fsync <file>`: each call also writes a 4 KiB page to
// the file and waits for its fdatasync, the floor of a durable write.
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createClient } from 'redis';

interface Transport {
  handleRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
}

const sdk = process.argv.includes('v1') ? 'v1' : 'v2';
const redisAt = process.argv.indexOf('--redis');
const redis = redisAt >= 0 ? createClient({ socket: { host: '127.0.0.1', port: Number(process.argv[redisAt + 1]) } }) : undefined;

const fsyncAt = process.argv.indexOf('--fsync');
const page = Buffer.alloc(4096, 1);
let file: FileHandle | undefined;

async function echo(text: string): Promise<{ content: Array<{ type: 'text'; text: string }> }> {
  if (redis) await redis.get('bench-echo');
  if (file) {
    await file.write(page, 0, page.length, 0);
    await file.datasync();
  }
  return { content: [{ type: 'text', text }] };
}

const schema = { description: 'Echoes the text.', inputSchema: { text: z.string() } };

async function open(onSession: (id: string, t: Transport) => void): Promise<Transport> {
  if (sdk === 'v1') {
    const server = new McpServerV1({ name: 'bench-echo', version: '0.0.1' });
    server.registerTool('echo', schema, ({ text }) => echo(text));
    const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => onSession(id, t) });
    await server.connect(t);
    return t;
  }
  const server = new McpServer({ name: 'bench-echo', version: '0.0.1' });
  server.registerTool('echo', { description: schema.description, inputSchema: z.object(schema.inputSchema) }, ({ text }) => echo(text));
  const t: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => onSession(id, t) });
  await server.connect(t);
  return t;
}

const transports = new Map<string, Transport>();

const http = createServer((req, res) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const sid = req.headers['mcp-session-id'];
    const transport = (typeof sid === 'string' ? transports.get(sid) : undefined) ?? (await open((id, t) => transports.set(id, t)));
    await transport.handleRequest(req, res, body);
  })().catch((e: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e));
  });
});

void (async () => {
  await redis?.connect();
  if (fsyncAt >= 0) file = await openFile(process.argv[fsyncAt + 1], 'w');
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` })}\n`);
  });
})();
process.on('SIGTERM', () => process.exit(0));
