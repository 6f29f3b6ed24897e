#!/usr/bin/env node
// `npm run test:electron`: the desktop path. Downloads a VS Code build with
// @vscode/test-electron (needs internet: it cannot run on our offline
// machines, where test/e2e/mcc.e2e.mjs runs the same checks in code-server),
// installs the freshly packaged VSIX into a throw-away extensions dir with
// that VS Code's CLI, and runs suite/index.cjs inside its extension host:
// once in a trusted copy of the fixture workspace, once untrusted.
//
//   npm install --no-save @vscode/test-electron   # once, not a dependency of the repo
//   npm run test:electron                         # VSCODE_VERSION=stable|insiders|1.101.0
// On Linux without a display: xvfb-run -a npm run test:electron
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');

let te;
try {
  te = await import('@vscode/test-electron');
} catch {
  console.error('test:electron needs @vscode/test-electron: npm install --no-save @vscode/test-electron\n' +
    '(it downloads VS Code, so it runs only on a machine with internet; offline, use npm run test:e2e)');
  process.exit(2);
}

const { packageVsix } = await import(pathToFileURL(path.join(root, 'scripts', 'package.mjs')).href);

const target = `${process.platform}-${process.arch}`;
const { vsix } = await packageVsix({ target });
const version = process.env.VSCODE_VERSION || 'stable';
const vscodePath = await te.downloadAndUnzipVSCode(version);
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
