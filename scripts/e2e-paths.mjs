// Where the end-to-end toolchain lives. Shared by scripts/e2e-setup.mjs (which
// fills it) and test/e2e/harness.mjs (which uses it), so both agree on paths.
// Everything sits outside the repo: it is ~700 MB and machine-specific.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

export const versions = Object.freeze({
  codeServer: '4.139.1',
  // code-server 4.139.1 declares engines.node 24; the npm package `node@24` brings it.
  node: '24',
  playwrightCore: '1.64.1',
  // The MCP conformance suite's CLI (server scenarios); it needs Node >= 22, so runs on node@24.
  conformance: '0.1.16',
  // The 0.2 line tests 2026-07-28 as well; an alpha, so pinned exactly (it is not the `latest` tag).
  conformanceNext: '0.2.0-alpha.12',
});

export const cacheDir = process.env.MCC_E2E_CACHE || path.join(os.homedir(), '.cache', 'mcc-e2e');

// One folder per component and version, so bumping a version installs afresh
// next to the old one instead of mutating it.
const nodeDir = path.join(cacheDir, `node-${versions.node}`);
const codeServerDir = path.join(cacheDir, `code-server-${versions.codeServer}`);
const playwrightDir = path.join(cacheDir, `playwright-core-${versions.playwrightCore}`);
const conformanceDir = path.join(cacheDir, `mcp-conformance-${versions.conformance}`);
const conformanceNextDir = path.join(cacheDir, `mcp-conformance-${versions.conformanceNext}`);

export const paths = Object.freeze({
  cacheDir,
  nodeDir,
  nodeBinDir: path.join(nodeDir, 'node_modules', 'node', 'bin'),
  node: path.join(nodeDir, 'node_modules', 'node', 'bin', 'node'),
  // Headers for node-gyp: the global npm config points at /usr (Node 20).
  nodeHeadersDir: path.join(nodeDir, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`),
  codeServerDir,
  codeServer: path.join(codeServerDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
  playwrightDir,
  playwrightCore: path.join(playwrightDir, 'node_modules', 'playwright-core', 'index.mjs'),
  chromium: process.env.MCC_E2E_CHROMIUM || '/usr/bin/chromium',
  conformanceDir,
  conformance: path.join(conformanceDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  conformanceNextDir,
  conformanceNext: path.join(conformanceNextDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
});

export const MARKER = '.mcc-e2e-ok';

/** True when a component folder finished installing (its marker was written last). */
export function isInstalled(dir) {
  return fs.existsSync(path.join(dir, MARKER));
}

/** Throws with the fix when setup has not run, instead of failing later in an obscure way. */
export function assertReady() {
  const missing = [
    [paths.nodeDir, 'node@24'],
    [paths.codeServerDir, `code-server ${versions.codeServer}`],
    [paths.playwrightDir, `playwright-core ${versions.playwrightCore}`],
    [paths.conformanceDir, `@modelcontextprotocol/conformance ${versions.conformance}`],
    [paths.conformanceNextDir, `@modelcontextprotocol/conformance ${versions.conformanceNext}`],
  ].filter(([dir]) => !isInstalled(dir)).map(([, name]) => name);
  if (!fs.existsSync(paths.chromium)) missing.push(`chromium (${paths.chromium})`);
  if (missing.length) {
    throw new Error(`e2e toolchain not ready (missing: ${missing.join(', ')}); run: node scripts/e2e-setup.mjs`);
  }
  return paths;
}
