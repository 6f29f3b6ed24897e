// A 2026-07-28 client for the tests: the SDK v2 Client pinned to the new
// revision, with a bearer token and, when asked, form elicitation.
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/client';

export interface ModernOptions {
  token: string;
  sessionKey?: string;
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
  const headers: Record<string, string> = { authorization: `Bearer ${o.token}`, ...(o.sessionKey ? { 'x-mcc-session-key': o.sessionKey } : {}) };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export async function callTool(c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args }));
}

