// The code-server process: its isolated environment, start on a free
// loopback port, and stop (its whole process group).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { paths } from '../../scripts/e2e-paths.mjs';
import { npmChildEnv } from '../../scripts/npm-child-env.mjs';

/**
 * The environment for code-server (and so the extension host): config and
 * data under tmp, no gallery or proxied traffic off loopback, then `extra`.
 */
export function codeServerEnv(tmp, extra) {
  const deadLoopback = 'http://127.0.0.1:9';
  const base = npmChildEnv(); // nothing of the outer `npm test`
  const env = {
    ...base,
    PATH: `${paths.nodeBinDir}${path.delimiter}${base.PATH ?? ''}`,
    // Keep code-server's own config out of $HOME.
    XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
    XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
    // No extension gallery traffic: point it at a dead loopback port.
    EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: `${deadLoopback}/gallery`, itemUrl: `${deadLoopback}/item`, resourceUrlTemplate: `${deadLoopback}/{publisher}/{name}/{version}/{path}` }),
    // Anything server-side that honours proxies goes nowhere; loopback stays direct.
    http_proxy: deadLoopback, https_proxy: deadLoopback, HTTP_PROXY: deadLoopback, HTTPS_PROXY: deadLoopback,
    no_proxy: '127.0.0.1,localhost', NO_PROXY: '127.0.0.1,localhost',
    ...extra,
  };
  delete env.NODE_OPTIONS; // the test runner's flags must not leak into code-server
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_')) delete env[k];
  return env;
}

/**
 * Spawns code-server on 127.0.0.1 port 0 (it picks a free port and prints it:
 * no race with a probe port), in its own process group so stopCodeServer can
 * kill the whole tree.
 */
export function spawnCodeServer({ tmp, env, userDataDir, extensionsDir, trust, workspaceFolder }) {
  const args = [
    paths.codeServer,
    '--auth', 'none', '--bind-addr', '127.0.0.1:0',
    '--config', path.join(tmp, 'code-server.yaml'),
    '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir,
    '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
    '--ignore-last-opened',
    ...(trust ? ['--disable-workspace-trust'] : []),
    workspaceFolder,
  ];
  fs.writeFileSync(path.join(tmp, 'code-server.yaml'), 'auth: none\n');
  return spawn(paths.node, args, { env, cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the port code-server listens on; from then on its output is piped to log. */
export async function waitForListening(codeServer, log, timeoutMs) {
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`code-server did not start within ${timeoutMs}ms:\n${buf}`)), timeoutMs);
    const onData = (chunk) => {
      log.write(chunk);
      buf += chunk;
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(buf);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    codeServer.stdout.on('data', onData);
    codeServer.stderr.on('data', onData);
    codeServer.once('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`code-server exited (${code ?? sig}) before listening:\n${buf}`)); });
  });
  codeServer.removeAllListeners('exit');
  codeServer.stdout.removeAllListeners('data');
  codeServer.stderr.removeAllListeners('data');
  codeServer.stdout.pipe(log, { end: false });
  codeServer.stderr.pipe(log, { end: false });
  return port;
}

/** SIGTERM to the process group (SIGKILL after 5 s), then SIGKILL to whatever the group still holds. */
export async function stopCodeServer(codeServer) {
  if (codeServer && codeServer.exitCode === null && codeServer.signalCode === null) {
    const exited = new Promise((r) => codeServer.once('exit', r));
    try { process.kill(-codeServer.pid, 'SIGTERM'); } catch { /* gone */ }
    const t = setTimeout(() => { try { process.kill(-codeServer.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
    await exited;
    clearTimeout(t);
  }
  // The group may still hold children (extension host, pty) after the leader left.
  try { if (codeServer?.pid) process.kill(-codeServer.pid, 'SIGKILL'); } catch { /* none left */ }
}
