#!/usr/bin/env node
// Idempotent setup of the real-editor test toolchain (code-server + Chromium).
// Each component is installed into its own versioned cache folder and marked
// done only at the very end, so an interrupted run is redone, never half-used.
// Usage: node scripts/e2e-setup.mjs [--json]   (paths as JSON on stdout)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { paths, versions, isInstalled, MARKER } from './e2e-paths.mjs';

const log = (msg) => process.stderr.write(`[e2e-setup] ${msg}\n`);
const t0 = Date.now();
const timings = {};

class SetupError extends Error {}

function run(cmd, args, opts = {}) {
  // Child output goes to stderr so stdout stays clean for --json.
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 2], ...opts });
  if (r.error) throw new SetupError(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new SetupError(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function dpkgInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function ensureDebianPackages(pkgs) {
  const missing = pkgs.filter((p) => !dpkgInstalled(p));
  if (!missing.length) return;
  const started = Date.now();
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  if (!asRoot && spawnSync('sudo', ['-n', 'true']).status !== 0) {
    throw new SetupError(`missing Debian packages ${missing.join(' ')}; install them as root: apt-get install -y ${missing.join(' ')}`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const aptCmd = (args) => (sudo.length ? run(sudo[0], [...sudo.slice(1), 'apt-get', ...args], { env }) : run('apt-get', args, { env }));
  log(`installing Debian packages: ${missing.join(' ')} (apt-get update first)…`);
  aptCmd(['update', '-q']);
  aptCmd(['install', '-y', '-q', '--no-install-recommends', ...missing]);
  timings.apt = Date.now() - started;
}

/** npm-installs `spec` into `dir` (a private package folder), then writes the marker. */
function ensureNpmPackage({ name, note = '', dir, spec, env, check }) {
  if (isInstalled(dir)) return;
  const started = Date.now();
  // Redo from scratch: a folder without a marker is a broken earlier attempt.
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'mcc-e2e-cache', private: true }) + '\n');
  log(`installing ${name}${note}…`);
  run('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec], {
    cwd: dir,
    env: { ...process.env, ...env },
  });
  check?.();
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  fs.writeFileSync(path.join(dir, MARKER), JSON.stringify({ spec, installedAt: new Date().toISOString(), seconds: Number(secs) }) + '\n');
  timings[name] = Date.now() - started;
  log(`${name} installed in ${secs}s`);
}

function mustExist(file, what) {
  if (!fs.existsSync(file)) throw new SetupError(`${what} not found at ${file} after install`);
}

function node24Env() {
  return {
    PATH: `${paths.nodeBinDir}${path.delimiter}${process.env.PATH}`,
    // The machine's npm config says nodedir=/usr (Node 20 headers); native
    // modules of code-server must be built against Node 24's.
    npm_config_nodedir: paths.nodeHeadersDir,
  };
}

try {
  fs.mkdirSync(paths.cacheDir, { recursive: true });
  // libkrb5-dev: code-server's `kerberos` dependency compiles against it.
  ensureDebianPackages(['chromium', 'libkrb5-dev']);

  ensureNpmPackage({
    name: `node@${versions.node}`,
    dir: paths.nodeDir,
    spec: `node@${versions.node}`,
    check: () => {
      mustExist(paths.node, 'node 24 binary');
      mustExist(path.join(paths.nodeHeadersDir, 'include', 'node', 'node_api.h'), 'node 24 headers');
      const v = spawnSync(paths.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      if (!v.startsWith(`v${versions.node}.`)) throw new SetupError(`expected Node ${versions.node}, got ${v || 'nothing'}`);
    },
  });

  ensureNpmPackage({
    name: `code-server ${versions.codeServer}`,
    note: ' (first run takes several minutes)',
    dir: paths.codeServerDir,
    spec: `code-server@${versions.codeServer}`,
    env: node24Env(),
    check: () => mustExist(paths.codeServer, 'code-server entry'),
  });

  ensureNpmPackage({
    name: `playwright-core ${versions.playwrightCore}`,
    dir: paths.playwrightDir,
    spec: `playwright-core@${versions.playwrightCore}`,
    // Debian's chromium is used; never let it try to fetch a browser.
    env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    check: () => mustExist(paths.playwrightCore, 'playwright-core'),
  });

  mustExist(paths.chromium, 'chromium');
  const total = Date.now() - t0;
  log(`ready in ${(total / 1000).toFixed(1)}s (cache: ${paths.cacheDir})`);
  const out = { ok: true, versions, paths, timingsMs: { ...timings, total } };
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
} catch (err) {
  const msg = err instanceof SetupError ? err.message : err.stack || String(err);
  log(`FAILED: ${msg}`);
  process.exit(1);
}
