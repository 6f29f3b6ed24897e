// Starts a real redis-server (Debian's package; npm test installs it) for a
// test: on a free loopback port, with its own temp folder, the append-only
// file on, and no snapshots. Stop it with stop(); crash() is kill -9.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Undefined when redis-server is there (the tests' skip option); a missing one is an error, not a skip. */
export function redisUnavailable(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  // Never a silent skip: npm test installs it (scripts/e2e-setup.mjs), so its absence is a setup error.
  throw new Error('redis-server is not installed: run npm run e2e:setup (or apt-get install -y redis-server) before the Redis tests');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** On a free port, or on `port` (a restart where a stopped one was, as clients reconnect to it). */
export async function startRedis(port?: number): Promise<RedisServer> {
  if (port !== undefined) return tryStart(port);
  for (let attempt = 0; ; attempt++) {
    try {
      return await tryStart(await freePort());
    } catch (e) {
      // Another process may have taken the port between freePort and the bind.
      if (attempt >= 3) throw e;
    }
  }
}

async function tryStart(port: number): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--daemonize', 'no', '--logfile', ''];
  const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    dir,
    proc,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
