// The serve layer started inside the test process (memory storage, a real
// HTTP endpoint on loopback), for tests that need its internals or short
// limits; and raw HTTP helpers for what the SDK's client never sends.
import { join } from 'node:path';
import { CatalogSource } from '../../src/core/catalog-source';
import type { McpSessionLimits } from '../../src/core/http/mcp-sessions';
import type { UsersConfig } from '../../src/core/http/users-file';
import type { Principal } from '../../src/core/identity';
import { startServing, type RunningServer } from '../../src/core/serve/serve';
import { MemoryStorage } from '../../src/core/session/memory-storage';
import { REPO } from './serve-process';

export const OWNER: Principal = { user: 'owner', email: '', groups: ['admin'], grants: [] };
export const OWNER_TOKEN = 'owner-token-for-tests-0123456789';
export const PROGRESS_TOOLS = join(REPO, 'test', 'fixtures', 'progress', 'tools.yaml');

export interface InProcess {
  url: string;
  token: string;
  server: RunningServer;
  stop(): Promise<void>;
}

export async function serveInProcess(o: { sessions?: Partial<McpSessionLimits>; maxBodyBytes?: number; users?: UsersConfig } = {}): Promise<InProcess> {
  let catalog: CatalogSource | undefined;
  const server = await startServing({
    runtime: { storage: new MemoryStorage(), execMode: 'pipe' },
    owner: { token: OWNER_TOKEN, principal: OWNER },
    ...(o.users ? { users: o.users } : {}),
    transport: {
      kind: 'http',
      host: '127.0.0.1',
      port: 0,
      ...(o.sessions ? { sessions: o.sessions } : {}),
      ...(o.maxBodyBytes !== undefined ? { maxBodyBytes: o.maxBodyBytes } : {}),
    },
    prepare: async ({ runtime, fnResolver }) => {
      catalog = new CatalogSource([PROGRESS_TOOLS], { fnResolver, onLoad: (c) => runtime.catalog.set(c) });
      await catalog.load();
    },
  });
  const http = server.http;
  if (!http) throw new Error('no HTTP endpoint');
  return { url: http.url, token: OWNER_TOKEN, server, stop: () => server.stop() };
}

export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or the JSON-RPC messages of an SSE body. */
  messages: unknown[];
}

export async function rawPost(url: string, headers: Record<string, string>, body: unknown): Promise<RawAnswer> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return answer(r);
}

export async function rawRequest(url: string, method: string, headers: Record<string, string>): Promise<RawAnswer> {
  return answer(await fetch(url, { method, headers }));
}

async function answer(r: Response): Promise<RawAnswer> {
  const text = await r.text();
  const sse = (r.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const messages = sse
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: ') && l.length > 'data: '.length)
        .map((l) => JSON.parse(l.slice('data: '.length)) as unknown)
    : text
      ? [JSON.parse(text) as unknown]
      : [];
  return { status: r.status, headers: r.headers, text, messages };
}

/** Opens an MCP session by hand; returns its id and the headers that name it. */
export async function rawSession(url: string, token: string | undefined, extra: Record<string, string> = {}): Promise<{ sid: string; headers: Record<string, string> }> {
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}`, ...extra } : { ...extra };
  const init = await rawPost(url, auth, INIT);
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${init.text}`);
  const sid = init.headers.get('mcp-session-id');
  if (!sid) throw new Error('no session id');
  const headers = { ...auth, 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' };
  const done = await rawPost(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (done.status !== 202) throw new Error(`initialized answered ${done.status}`);
  return { sid, headers };
}

export function errorOf(a: RawAnswer): { code: number; message: string } {
  return (a.messages[0] as { error: { code: number; message: string } }).error;
}
