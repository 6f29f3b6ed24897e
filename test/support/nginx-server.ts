// Starts a real nginx (Debian's package; npm test installs it) in the
// foreground, with its own prefix folder under the temp folder, serving the
// README's team config (examples/team/nginx.conf) with only what a test
// machine must change: the instances' ports, plain HTTP on a free loopback
// port instead of TLS on 443, and the public name clients use. Its access log
// records which instance answered each request. Stop it with stop().
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './redis-server';

export const TEAM_NGINX_CONF = resolve(__dirname, '..', '..', '..', 'examples', 'team', 'nginx.conf');

export interface LoggedRequest {
  method: string;
  status: number;
  /** The instances nginx tried, in order (two when it passed the request on). */
  upstreams: string[];
  uri: string;
  /** The request's X-Test-Step header: which step of a test sent it. */
  step: string;
  /** The JSON-RPC request, for a POST that had one. */
  body?: { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
}

export interface NginxServer {
  url: string;
  port: number;
  /** The requests nginx finished, in the order it logged them. */
  accessLog(): LoggedRequest[];
  errorLog(): string;
  stop(): Promise<void>;
}

/** Undefined when nginx is there (the tests' skip option); a missing one is an error, not a skip. */
export function nginxUnavailable(): string | undefined {
  if (spawnSync('nginx', ['-v'], { encoding: 'utf8' }).status === 0) return undefined;
  throw new Error('nginx is not installed: run npm run e2e:setup (or apt-get install -y nginx) before the team nginx test');
}

/** Replaces `from` by `to` where the config has it; a config that no longer has it fails the test. */
function swap(conf: string, from: string | RegExp, to: string): string {
  const next = conf.replace(from, to);
  if (next === conf) throw new Error(`examples/team/nginx.conf no longer has ${String(from)}; update test/support/nginx-server.ts`);
  return next;
}

export function testConfig(conf: string, o: { instances: [number, number]; listen: number; publicName: string }): string {
  let c = swap(conf, /server 127\.0\.0\.1:8766 /, `server 127.0.0.1:${o.instances[0]} `);
  c = swap(c, /server 127\.0\.0\.1:8767 /, `server 127.0.0.1:${o.instances[1]} `);
  c = swap(c, /listen 443 ssl;/, `listen 127.0.0.1:${o.listen};`);
  c = swap(c, /^\s*ssl_certificate .*\n/m, '');
  c = swap(c, /^\s*ssl_certificate_key .*\n/m, '');
  return swap(c, /server_name mcc\.example\.com;/, `server_name ${o.publicName};`);
}

function mainConfig(dir: string): string {
  // Root runs its workers as root here: the temp folders are the test's own.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`).join('\n');
  return `${user}worker_processes 1;
events { worker_connections 256; }
http {
  log_format upstreams escape=json '$request_method|$status|$upstream_addr|$uri|$http_x_test_step|$request_body';
  access_log ${join(dir, 'access.log')} upstreams;
${temp}
  include ${join(dir, 'mcc.conf')};
}
`;
}

export async function startNginx(o: { instances: [number, number]; publicName: string }): Promise<NginxServer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await tryStart({ ...o, listen: await freePort() });
    } catch (e) {
      // Another process may have taken the port between freePort and the bind.
      if (attempt >= 3 || !/Address already in use/.test(String(e))) throw e;
    }
  }
}

async function tryStart(o: { instances: [number, number]; listen: number; publicName: string }): Promise<NginxServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-nginx-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'logs'));
  writeFileSync(join(dir, 'mcc.conf'), testConfig(readFileSync(TEAM_NGINX_CONF, 'utf8'), o));
  writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir));
  const errorLog = join(dir, 'error.log');
  const globals = `daemon off; master_process on; pid ${join(dir, 'nginx.pid')}; error_log ${errorLog} info;`;
  const proc: ChildProcess = spawn('nginx', ['-p', dir, '-e', errorLog, '-c', join(dir, 'nginx.conf'), '-g', globals], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${o.listen}/mcp`;
  const readLog = (): string => {
    try {
      return readFileSync(errorLog, 'utf8');
    } catch {
      return '';
    }
  };
  await untilListening(url, proc, () => `${out}${readLog()}`);
  return {
    url,
    port: o.listen,
    accessLog: () => readFileSync(join(dir, 'access.log'), 'utf8').split('\n').filter(Boolean).map(parseLine),
    errorLog: readLog,
    stop: async () => {
      // SIGQUIT: nginx's graceful stop.
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function parseLine(line: string): LoggedRequest {
  const [method, status, upstreams, uri, step, ...rest] = line.split('|');
  // escape=json: each field is the inside of a JSON string.
  const raw = JSON.parse(`"${rest.join('|')}"`) as string;
  let body: LoggedRequest['body'];
  try {
    body = raw ? (JSON.parse(raw) as LoggedRequest['body']) : undefined;
  } catch {
    body = undefined;
  }
  return { method, status: Number(status), upstreams: upstreams.match(/[\d.]+:\d+/g) ?? [], uri, step: JSON.parse(`"${step}"`) as string, ...(body ? { body } : {}) };
}

/** nginx says nothing when it is up: the first answer on its port is the sign. */
async function untilListening(url: string, proc: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`nginx exited with ${proc.exitCode ?? proc.signalCode}:\n${output()}`);
    try {
      await fetch(url.replace(/\/mcp$/, '/'));
      return;
    } catch {
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`nginx did not answer in 10 s:\n${output()}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
