#!/usr/bin/env node
// Idempotent setup of what the tests need beyond npm ci: the end-to-end
// toolchain (code-server + Chromium, and the MCP conformance suite run by
// test/e2e/conformance.e2e.mjs) and Debian's redis-server for the store tests.
// `npm test` runs it first, so a fresh machine needs nothing by hand.
// Each component is installed into its own versioned cache folder and marked
// done only at the very end, so an interrupted run is redone, never half-used.
// Usage: node scripts/e2e-setup.mjs [--json]   (paths as JSON on stdout)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { paths, versions, isInstalled, MARKER } from './e2e-paths.mjs';
import { npmChildEnv } from './npm-child-env.mjs';

const log = (msg) => process.stderr.write(`[e2e-setup] ${msg}\n`);
const t0 = Date.now();
const timings = {};

class SetupError extends Error {}

const RETRY = 'npm run e2e:setup';
const HEARTBEAT_MS = Number(process.env.MCC_E2E_HEARTBEAT_MS) || 10_000;
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;

/**
 * Runs one step's command, printing a heartbeat (what, how long so far) while
 * it runs, since a code-server install can take over ten minutes. Child output
 * goes to stderr so stdout stays clean for --json.
 */
function run(what, cmd, args, opts = {}) {
  const started = Date.now();
  const shown = [cmd, ...args].join(' ');
  const beat = setInterval(() => log(`… still installing ${what} (${secs(Date.now() - started)} so far)`), HEARTBEAT_MS);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 2, 2], ...opts });
    const fail = (why) => reject(new SetupError(`${what}: ${why}\n  command: ${shown}${opts.cwd ? `\n  in: ${opts.cwd}` : ''}\n  to retry: ${RETRY}`));
    child.on('error', (err) => { clearInterval(beat); fail(`could not start ${cmd}: ${err.message}`); });
    child.on('exit', (code, signal) => {
      clearInterval(beat);
      if (code === 0) resolve(Date.now() - started);
      else fail(`exited with ${code ?? signal} after ${secs(Date.now() - started)}`);
    });
  });
}

function dpkgInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

async function ensureDebianPackages(pkgs) {
  const missing = pkgs.filter((p) => !dpkgInstalled(p));
  if (!missing.length) return;
  const started = Date.now();
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  if (!asRoot && spawnSync('sudo', ['-n', 'true']).status !== 0) {
    throw new SetupError(`missing Debian packages ${missing.join(' ')}; install them as root (apt-get install -y ${missing.join(' ')}), then run: ${RETRY}`);
  }
  const env = { ...npmChildEnv(), DEBIAN_FRONTEND: 'noninteractive' };
  const what = `Debian packages ${missing.join(' ')}`;
  const aptCmd = (args) => run(what, sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), ...args], { env });
  log(`installing ${what} (apt-get update first)…`);
  await aptCmd(['update', '-q']);
  await aptCmd(['install', '-y', '-q', '--no-install-recommends', ...missing]);
  timings.apt = Date.now() - started;
  log(`${what} installed in ${secs(timings.apt)}`);
}

/** npm-installs `spec` into `dir` (a private package folder), then writes the marker. */
async function ensureNpmPackage({ name, note = '', dir, spec, env, check }) {
  if (isInstalled(dir)) {
    // A marker over files someone removed since would pass here and fail later, obscurely.
    try {
      check?.();
      return;
    } catch {
      log(`${name}: marked installed but its files are gone; installing again`);
    }
  }
  const started = Date.now();
  // Redo from scratch: a folder without a marker is a broken earlier attempt.
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'mcc-e2e-cache', private: true }) + '\n');
  log(`installing ${name}${note}…`);
  // A clean environment of its own: nothing of the outer `npm start` / `npm test`.
  await run(name, 'npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec], {
    cwd: dir,
    env: npmChildEnv(process.env, env),
  });
  check?.();
  timings[name] = Date.now() - started;
  fs.writeFileSync(path.join(dir, MARKER), JSON.stringify({ spec, installedAt: new Date().toISOString(), seconds: timings[name] / 1000 }) + '\n');
  log(`${name} installed in ${secs(timings[name])}`);
}

function mustExist(file, what) {
  if (!fs.existsSync(file)) throw new SetupError(`${what} not found at ${file} after install; to retry: ${RETRY}`);
}

function node24Env() {
  return {
    PATH: `${paths.nodeBinDir}${path.delimiter}${npmChildEnv().PATH ?? ''}`,
    // The machine's npm config says nodedir=/usr (Node 20 headers); native
    // modules of code-server must be built against Node 24's.
    npm_config_nodedir: paths.nodeHeadersDir,
  };
}

/**
 * One setup at a time per cache: a second one (another `npm test`, or
 * `npm start` beside it) would delete the folder the first is installing
 * into. The lock is a directory (mkdir is atomic) holding the owner's pid;
 * a lock whose owner is gone is taken over.
 */
async function lockCache() {
  const lock = path.join(paths.cacheDir, '.setup-lock');
  const started = Date.now();
  let said = 0;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      const release = () => fs.rmSync(lock, { recursive: true, force: true });
      process.on('exit', release);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const owner = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' })) || undefined;
    if (owner === undefined && Date.now() - fs.statSync(lock).mtimeMs < 5_000) {
      // Just made, its pid not written yet.
    } else if (!owner || !alive(owner)) {
      log(`taking over the lock of a setup that is gone (pid ${owner ?? '?'})`);
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    } else if (Date.now() - said >= HEARTBEAT_MS) {
      said = Date.now();
      log(`waiting for another setup of ${paths.cacheDir} (pid ${owner}) to finish (${secs(Date.now() - started)} so far)`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

try {
  fs.mkdirSync(paths.cacheDir, { recursive: true });
  await lockCache();
  // libkrb5-dev: code-server's `kerberos` dependency compiles against it.
  // redis-server: the Redis store tests start their own (test/support/redis-server.ts).
  // prometheus: the metrics test scrapes `mcc serve --metrics` with it (test/e2e/metrics.e2e.mjs); nginx: the team test (test/integration/team-nginx.test.ts).
  await ensureDebianPackages(['chromium', 'libkrb5-dev', 'redis-server', 'bubblewrap', 'nginx', 'prometheus']);

  await ensureNpmPackage({
    name: `node@${versions.node}`,
    dir: paths.nodeDir,
    spec: `node@${versions.node}`,
    check: () => {
      mustExist(paths.node, 'node 24 binary');
      mustExist(path.join(paths.nodeHeadersDir, 'include', 'node', 'node_api.h'), 'node 24 headers');
      const v = spawnSync(paths.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      if (!v.startsWith(`v${versions.node}.`)) throw new SetupError(`expected Node ${versions.node}, got ${v || 'nothing'}; to retry: ${RETRY}`);
    },
  });

  await ensureNpmPackage({
    name: `code-server ${versions.codeServer}`,
    note: ' (first run takes several minutes)',
    dir: paths.codeServerDir,
    spec: `code-server@${versions.codeServer}`,
    env: node24Env(),
    check: () => mustExist(paths.codeServer, 'code-server entry'),
  });

  await ensureNpmPackage({
    name: `playwright-core ${versions.playwrightCore}`,
    dir: paths.playwrightDir,
    spec: `playwright-core@${versions.playwrightCore}`,
    // Debian's chromium is used; never let it try to fetch a browser.
    env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    check: () => mustExist(paths.playwrightCore, 'playwright-core'),
  });

  for (const [version, dir, cli] of [
    [versions.conformance, paths.conformanceDir, paths.conformance],
    [versions.conformanceNext, paths.conformanceNextDir, paths.conformanceNext],
  ]) {
    await ensureNpmPackage({
      name: `@modelcontextprotocol/conformance ${version}`,
      dir,
      spec: `@modelcontextprotocol/conformance@${version}`,
      env: node24Env(),
      check: () => {
        mustExist(cli, 'conformance CLI');
        const r = spawnSync(paths.node, [cli, '--version'], { encoding: 'utf8' });
        if (r.stdout.trim() !== version) throw new SetupError(`the conformance CLI answered '${(r.stdout + r.stderr).trim()}' under Node 24; to retry: ${RETRY}`);
      },
    });
  }

  mustExist(paths.chromium, 'chromium');
  const total = Date.now() - t0;
  log(`ready in ${secs(total)} (cache: ${paths.cacheDir})`);
  const out = { ok: true, versions, paths, timingsMs: { ...timings, total } };
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
} catch (err) {
  const msg = err instanceof SetupError ? err.message : err.stack || String(err);
  log(`FAILED: ${msg}`);
  process.exit(1);
}
