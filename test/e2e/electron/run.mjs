#!/usr/bin/env node
// `npm run test:electron`: the desktop path. Gets a desktop VS Code with
// @vscode/test-electron (a download: it needs internet, so it cannot run on
// our offline machines, where test/e2e/mcc.e2e.mjs runs the same checks in
// code-server), installs the freshly packaged VSIX into a throw-away
// extensions dir with that VS Code's CLI, and runs suite/index.cjs inside its
// extension host: once in a trusted copy of the fixture workspace, once untrusted.
//
//   npm run test:electron                  # VSCODE_VERSION=stable|insiders|1.101.0
//   MCC_VSCODE_EXECUTABLE=/path/to/code npm run test:electron   # a VS Code you have, no download
// On Linux without a display: xvfb-run -a npm run test:electron
//
// When VS Code cannot be had (offline, no display), it stops with one line
// saying why and exit code 2; not part of `npm test`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const OFFLINE_HINT = 'offline, `npm run test:e2e` runs the same checks in code-server';

/** Stops with one line: why the desktop run cannot happen here. */
function cannot(why) {
  console.error(`test:electron: ${why}`);
  process.exit(2);
}

let te;
try {
  te = await import('@vscode/test-electron');
} catch {
  cannot('@vscode/test-electron is not installed; run `npm ci` first');
}
const version = process.env.VSCODE_VERSION || 'stable';
let vscodePath = process.env.MCC_VSCODE_EXECUTABLE;
if (vscodePath) {
  if (!fs.existsSync(vscodePath)) cannot(`MCC_VSCODE_EXECUTABLE=${vscodePath} does not exist`);
} else {
  // Its own spinner and retry trail would bury the one line that matters: say only that a download started.
  let said = false;
  const reporter = {
    report(r) {
      if (r.stage === 'downloading' && !said) {
        said = true;
        console.log(`[test:electron] downloading VS Code ${version} into .vscode-test/ …`);
      }
    },
    error() {},
  };
  try {
    vscodePath = await te.downloadAndUnzipVSCode({ version, reporter, timeout: 30_000 });
  } catch (err) {
    cannot(`cannot download VS Code ${version} (${downloadError(err)}): it needs internet access; ${OFFLINE_HINT}`);
  }
}
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  cannot('no display for a desktop VS Code; run it as `xvfb-run -a npm run test:electron`');
}

/** The reason of a failed download in a few words (no stack). */
function downloadError(err) {
  const code = err?.code ?? err?.cause?.code;
  const msg = String(err?.message ?? err).split('\n')[0];
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve ${/ENOTFOUND (\S+)/.exec(msg)?.[1] ?? 'the download host'}`;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'ENETUNREACH') return `${code} reaching the download host`;
  return msg.length > 160 ? `${msg.slice(0, 159)}…` : msg;
}

const { packageVsix } = await import(pathToFileURL(path.join(root, 'scripts', 'package.mjs')).href);

const target = `${process.platform}-${process.arch}`;
const { vsix } = await packageVsix({ target });
const [cli, ...cliArgs] = te.resolveCliArgsFromVSCodeExecutablePath(vscodePath);

let failed = false;
for (const suite of ['trusted', 'untrusted']) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-electron-'));
  const userDataDir = path.join(tmp, 'user-data');
  const extensionsDir = path.join(tmp, 'extensions');
  const workspace = path.join(tmp, 'workspace');
  fs.cpSync(path.join(here, '..', 'fixtures', 'mcc-workspace'), workspace, { recursive: true });
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({
    'mcc.identity.user': 'e2e-owner',
    'mcc.terminal.reveal': 'always',
    'security.workspace.trust.enabled': suite === 'untrusted',
    'security.workspace.trust.startupPrompt': 'never',
    'workbench.startupEditor': 'none',
    'telemetry.telemetryLevel': 'off',
  }, null, 2));
  // The artifact users install, not the source folder.
  const install = spawnSync(cli, [...cliArgs, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (install.status !== 0) throw new Error(`installing ${vsix} failed`);
  try {
    await te.runTests({
      vscodeExecutablePath: vscodePath,
      extensionDevelopmentPath: here, // a no-op runner extension; the suite runs as extensionTestsPath
      extensionTestsPath: path.join(here, 'suite', 'index.cjs'),
      extensionTestsEnv: { MCC_ELECTRON_SUITE: suite },
      launchArgs: [workspace, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, ...(suite === 'trusted' ? ['--disable-workspace-trust'] : [])],
    });
    console.log(`[test:electron] ${suite}: passed`);
  } catch (err) {
    console.error(`[test:electron] ${suite}: FAILED (${err?.message ?? err})`);
    failed = true;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
