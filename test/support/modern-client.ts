// A 2026-07-28 client for the tests: the SDK v2 Client pinned to the new
// revision, with a bearer token and, when asked, form elicitation.
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/client';

export interface ModernOptions {
  token: string;
  sessionKey?: string;
  /** More request headers (a test's tag for a proxy's log, say). */
  headers?: Record<string, string>;
  /** Answers a form for missing params (the client then declares form elicitation). */
  answer?: (message: string) => ElicitResult;
}

export async function connectModern(url: string, o: ModernOptions): Promise<Client> {
  const client = new Client(
    { name: 'modern-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...(o.answer ? { capabilities: { elicitation: { form: {} } } } : {}) },
  );
  const answer = o.answer;
  if (answer) client.setRequestHandler('elicitation/create', (req) => Promise.resolve(answer(req.params.message)));
  const headers: Record<string, string> = { ...o.headers, authorization: `Bearer ${o.token}`, ...(o.sessionKey ? { 'x-mcc-session-key': o.sessionKey } : {}) };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export async function callTool(c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args }));
}


/** One 2026-07-28 request on the wire (for what the SDK client has no call for, such as tasks). */
export async function rawModern(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  o: { tasks?: boolean } = {},
): Promise<{ status: number; result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const name = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': o.tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await res.text();
  // A JSON body, or an SSE stream whose last message is the answer.
  const json = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:') && l.length > 5).map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>).filter((m) => 'id' in m).pop()
    : (JSON.parse(text) as Record<string, unknown>);
  return { status: res.status, ...(json as { result?: Record<string, unknown>; error?: { code: number; message: string } }) };
}
