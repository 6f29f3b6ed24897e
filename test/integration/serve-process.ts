// Starts the real `mcc serve` (the built dist/cli.js) as a child process and
// connects real MCP clients to it over Streamable HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const REPO = resolve(__dirname, '..', '..', '..');
export const CLI = join(REPO, 'dist', 'cli.js');
export const FIXTURES = join(REPO, 'test', 'fixtures', 'integration');

export interface ServeHandle {
  url: string;
  token: string;
  /** The metrics endpoint (--metrics). */
  metrics?: string;
  port: number;
  proc: ChildProcess;
  stderr(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function tempDir(prefix = 'mcc-it-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `cli` runs another build of mcc (the bench compares against an older one). */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}, cli = CLI): Promise<ServeHandle> {
  const proc = spawn(process.execPath, [cli, 'serve', ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  const line = await new Promise<string>((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`mcc serve did not start in time; stderr:\n${err}`)), 20000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        res(out.slice(0, nl));
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`mcc serve exited with ${code} before listening; stderr:\n${err}`));
    });
  });
  const info = JSON.parse(line) as { url: string; token: string; metrics?: string };
  return {
    ...info,
    port: Number(new URL(info.url).port),
    proc,
    stderr: () => err,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

export interface ConnectOptions {
  token?: string | null;
  sessionKey?: string;
  name?: string;
  /** More request headers (a test's tag for a proxy's log, say). */
  headers?: Record<string, string>;
}

export async function connect(h: { url: string; token: string }, o: ConnectOptions = {}): Promise<Client> {
  const headers: Record<string, string> = { ...o.headers };
  const token = o.token === undefined ? h.token : o.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (o.sessionKey) headers['X-MCC-Session-Key'] = o.sessionKey;
  const client = new Client({ name: o.name ?? 'mcc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers } }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Calls a tool and returns its text, failing the test when the call is an error. */
export async function okText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
  return text(r);
}

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
