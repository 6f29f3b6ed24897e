// Debian's Chromium through playwright-core, kept on loopback, and the page
// the workbench is loaded in.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { paths } from '../../scripts/e2e-paths.mjs';

// From the doc, plus: every host but loopback resolves to nothing and any
// proxied request goes to a dead loopback port, so the browser cannot reach
// the internet even if the workbench tries (gallery, CDN, telemetry).
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=127.0.0.1;localhost',
];

/** Launches headless Chromium; its crash database and caches go under tmp, not $HOME. */
export async function launchBrowser({ tmp, xdgConfigHome }) {
  const { chromium } = await import(pathToFileURL(paths.playwrightCore).href);
  return chromium.launch({
    executablePath: paths.chromium,
    args: CHROMIUM_ARGS,
    headless: true,
    env: { ...process.env, XDG_CONFIG_HOME: xdgConfigHome, XDG_CACHE_HOME: path.join(tmp, 'xdg-cache') },
  });
}

/** A new context and page whose console output and page errors go to consoleLog. */
export async function openPage(browser, { viewport, consoleLog }) {
  const context = await browser.newContext({ viewport: viewport || { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => consoleLog.write(`[pageerror] ${e.message}\n`));
  return { context, page };
}
