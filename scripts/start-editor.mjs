#!/usr/bin/env node
// `npm start`: the editor demo. Builds and packages the VSIX, sets up
// code-server (cached; the first run takes minutes and shows progress),
// installs the VSIX into a cached extensions dir, and serves the repo root
// (the sample workspace with the root tools.yaml) on 127.0.0.1 until Ctrl+C.
//
// Environment:
//   MCC_START_PORT=8080     fixed port (default: a free one)
//   MCC_START_AUTH=none     no password (default: a random password, printed)
//   MCC_START_FOLDER=path   another folder to open (default: the repo root)
//   MCC_E2E_CACHE=dir       where code-server and the editor profile live
//
// `npm run serve` stays the headless MCP server.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { paths } from './e2e-paths.mjs';
import { npmChildEnv } from './npm-child-env.mjs';
import { packageVsix } from './package.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.resolve(process.env.MCC_START_FOLDER || root);
const port = Number(process.env.MCC_START_PORT || 0);
const auth = process.env.MCC_START_AUTH === 'none' ? 'none' : 'password';
// A profile of its own, kept between runs (sessions survive a restart, as in a desktop VS Code).
const home = path.join(paths.cacheDir, 'start');
const userDataDir = path.join(home, 'user-data');
const extensionsDir = path.join(home, 'extensions');
const log = (m) => console.log(`[start] ${m}`);

function step(name, fn) {
  const t = Date.now();
  log(`${name}…`);
  const r = fn();
  return Promise.resolve(r).then((v) => { log(`${name}: done in ${((Date.now() - t) / 1000).toFixed(1)}s`); return v; });
}

const { vsix, reused } = await step('building and packaging the VSIX', () => packageVsix({ json: false }));
if (reused) log('the VSIX is unchanged since the last run: kept it');

await step('setting up code-server (first run: a few minutes)', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'e2e-setup.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('e2e setup failed (see above)');
});

// code-server and its extension host get none of the outer npm's variables.
const env = {
  ...npmChildEnv(),
  PATH: `${paths.nodeBinDir}${path.delimiter}${npmChildEnv().PATH ?? ''}`,
  XDG_CONFIG_HOME: path.join(home, 'xdg-config'),
  XDG_DATA_HOME: path.join(home, 'xdg-data'),
  // Only our extension matters here: no gallery (it would be open-vsx.org).
  EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/item', resourceUrlTemplate: 'http://127.0.0.1:9/{publisher}/{name}/{version}/{path}' }),
};
delete env.NODE_OPTIONS;
for (const k of Object.keys(env)) if (k.startsWith('VSCODE_')) delete env[k];

await step('installing the VSIX', () => {
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const settings = path.join(userDataDir, 'User', 'settings.json');
  if (!fs.existsSync(settings)) {
    fs.writeFileSync(settings, JSON.stringify({
      'telemetry.telemetryLevel': 'off',
      'workbench.startupEditor': 'none',
      'extensions.autoUpdate': false,
      'extensions.autoCheckUpdates': false,
      'update.mode': 'none',
      'mcc.terminal.reveal': 'always',
    }, null, 2));
  }
  const cli = (...args) => spawnSync(paths.node, [paths.codeServer, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, ...args], { env, encoding: 'utf8' });
  // This extension under an earlier id (the publisher changed before 0.1) would run next to it.
  for (const old of staleInstalls()) {
    log(`removing ${old}, this extension under an earlier id`);
    cli('--uninstall-extension', old);
  }
  const r = cli('--force', '--install-extension', vsix);
  if (r.status !== 0) throw new Error(`installing ${vsix} failed:\n${r.stdout}\n${r.stderr}`);
});

/** Ids of this extension installed in the demo profile under another publisher. */
function staleInstalls() {
  const { publisher, name } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (!fs.existsSync(extensionsDir)) return [];
  const ids = fs.readdirSync(extensionsDir)
    .map((d) => new RegExp(`^([a-z0-9-]+\\.${name})-\\d`).exec(d)?.[1])
    .filter((id) => id && id !== `${publisher}.${name}`);
  return [...new Set(ids)];
}

const password = randomBytes(12).toString('base64url');
if (auth === 'password') env.PASSWORD = password;
const args = [
  paths.codeServer,
  '--auth', auth,
  '--bind-addr', `127.0.0.1:${port}`,
  '--config', path.join(home, 'code-server.yaml'),
  '--user-data-dir', userDataDir,
  '--extensions-dir', extensionsDir,
  '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
  // You asked to open your own checkout: trust it, as VS Code would after you said so.
  '--disable-workspace-trust',
  folder,
];
fs.writeFileSync(path.join(home, 'code-server.yaml'), `auth: ${auth}\n`);
log(`starting code-server on 127.0.0.1 with ${path.relative(root, folder) || 'the repo root'} …`);
const child = spawn(paths.node, args, { env, cwd: home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
const serverLog = fs.createWriteStream(path.join(home, 'code-server.log'));

let announced = false;
let buf = '';
const onData = (chunk) => {
  serverLog.write(chunk);
  if (announced) return;
  buf += chunk;
  const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buf);
  if (!m) return;
  announced = true;
  const url = `${m[1]}/?folder=${encodeURIComponent(folder)}`;
  console.log('');
  console.log(`  MCC in VS Code (code-server) is running. Open:  ${url}`);
  if (auth === 'password') console.log(`  Password: ${password}`);
  console.log(`  Then: the MCC icon in the activity bar; "MCP: List Servers" shows MCC.`);
  console.log(`  Log: ${path.join(home, 'code-server.log')}.  Ctrl+C stops it.`);
  console.log('');
};
child.stdout.on('data', onData);
child.stderr.on('data', onData);

let stopping = false;
const stop = (sig) => {
  if (stopping) return;
  stopping = true;
  log(`stopping (${sig})…`);
  try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
  const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } process.exit(0); }, 5000);
  t.unref();
};
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => stop(s));
process.on('exit', () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } });
child.on('exit', (code, sig) => {
  // The group may still hold the extension host and ptys.
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* none left */ }
  serverLog.end();
  if (!stopping) {
    console.error(`[start] code-server exited (${code ?? sig}):\n${buf.slice(-2000)}`);
    process.exit(1);
  }
  process.exit(0);
});
