// End-to-end harness: a real VS Code (code-server) driven by Debian's
// Chromium through playwright-core, plus a bridge into the extension host.
// Toolchain comes from scripts/e2e-setup.mjs (cached outside the repo).
//
//   const editor = await launchEditor({ vsixOrExtensionDir, workspaceFolder });
//   await editor.host.executeCommand('workbench.mcp.startServer', '*', {...});
//   await editor.screenshot('sessions-view');
//   await editor.close();
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertReady } from '../../scripts/e2e-paths.mjs';
import { hostClient, startBridge } from './bridge.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { codeServerEnv, spawnCodeServer, stopCodeServer, waitForListening } from './code-server.mjs';
import { installExtensions } from './extensions-dir.mjs';
import { focusWorkbench, readHostLogs, runFromPalette } from './page-helpers.mjs';
import { writeUserSettings } from './user-settings.mjs';

// Re-exported so every existing import of './harness.mjs' keeps working.
export { withFailureScreenshot } from './page-helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const artifactsRoot = path.join(repoRoot, 'test-artifacts', 'e2e');
export const helperExtensionDir = path.join(here, 'helper-extension');
export const probeExtensionDir = path.join(here, 'probe-extension');

const FATAL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A file-system-safe name for artifacts. */
function slug(s) {
  return String(s).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'run';
}

/**
 * Starts code-server + Chromium on a workspace and waits until the workbench
 * (and, unless helper: false, our helper extension in the extension host) is up.
 *
 * @param {object} o
 * @param {string|string[]} [o.vsixOrExtensionDir] a .vsix (installed with --install-extension) or an unpacked folder (copied), or a list
 * @param {string} o.workspaceFolder folder to open
 * @param {string} [o.userDataDir] default: a throw-away temp dir
 * @param {string} [o.extensionsDir] default: a throw-away temp dir
 * @param {object} [o.settings] user settings, merged over DEFAULT_SETTINGS (user-settings.mjs)
 * @param {boolean} [o.trust=true] false: workspace trust enabled and not granted (Restricted Mode)
 * @param {object} [o.env] extra environment for code-server and so the extension host
 * @param {boolean} [o.helper=true] install the in-host helper extension and wait for it
 * @param {string[]} [o.checks] CommonJS modules with named checks for host.check(name)
 * @param {object[]} [o.keybindings] written to the user's keybindings.json
 * @param {string} [o.name] run name: artifacts go to test-artifacts/e2e/<name>/
 * @param {number} [o.timeoutMs=90000] for startup
 */
export async function launchEditor(o) {
  assertReady();
  if (!o?.workspaceFolder) throw new Error('launchEditor: workspaceFolder is required');
  const name = slug(o.name || `run-${Date.now()}`);
  const timeoutMs = o.timeoutMs ?? 90_000;
  const trust = o.trust ?? true;
  const withHelper = o.helper ?? true;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-e2e-'));
  const userDataDir = o.userDataDir || path.join(tmp, 'user-data');
  const extensionsDir = o.extensionsDir || path.join(tmp, 'extensions');
  const artifactsDir = path.join(artifactsRoot, name);
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  // Fresh per run, so a picture or log never comes from an earlier run.
  fs.rmSync(artifactsDir, { recursive: true, force: true });
  fs.mkdirSync(artifactsDir, { recursive: true });
  const workspaceFolder = path.resolve(o.workspaceFolder);
  const logsDir = path.join(userDataDir, 'logs');

  const token = randomBytes(24).toString('hex');
  const env = codeServerEnv(tmp, o.env);

  let bridge;
  let codeServer;
  let browser;
  let closed = false;
  const codeServerLog = fs.createWriteStream(path.join(artifactsDir, 'code-server.log'));
  const consoleLog = fs.createWriteStream(path.join(artifactsDir, 'browser-console.log'));

  // Last-resort cleanup if the test process dies without close(): no orphans.
  const onExit = () => {
    try { if (codeServer?.pid) process.kill(-codeServer.pid, 'SIGKILL'); } catch { /* gone */ }
    try { const pid = browser?.process?.()?.pid; if (pid) process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    try { fs.rmSync(tmp, { recursive: true, force: true }); } catch { /* best effort */ }
  };
  process.once('exit', onExit);
  // code-server runs in its own process group (so close() can kill the whole
  // tree), which also means Ctrl+C does not reach it: forward fatal signals.
  const onSignal = (sig) => {
    onExit();
    for (const s of FATAL_SIGNALS) process.removeListener(s, onSignal);
    process.kill(process.pid, sig);
  };
  for (const s of FATAL_SIGNALS) process.once(s, onSignal);

  const close = async () => {
    if (closed) return;
    closed = true;
    process.removeListener('exit', onExit);
    for (const s of FATAL_SIGNALS) process.removeListener(s, onSignal);
    await browser?.close().catch(() => {});
    await stopCodeServer(codeServer);
    await bridge?.close();
    codeServerLog.end();
    consoleLog.end();
    // Keep the logs next to the screenshots, then drop the throw-away dirs.
    try { fs.cpSync(logsDir, path.join(artifactsDir, 'logs'), { recursive: true }); } catch { /* no logs */ }
    // Dirs the caller passed live outside tmp and are kept.
    fs.rmSync(tmp, { recursive: true, force: true });
  };

  try {
    if (withHelper) {
      bridge = await startBridge(token);
      env.MCC_E2E_BRIDGE = bridge.url;
      env.MCC_E2E_TOKEN = token;
      env.MCC_E2E_CHECKS = (o.checks || []).map((p) => path.resolve(p)).join(';');
    }

    writeUserSettings(userDataDir, { trust, settings: o.settings, keybindings: o.keybindings });

    const sources = [o.vsixOrExtensionDir ?? []].flat();
    installExtensions(sources, withHelper ? [helperExtensionDir] : [], { userDataDir, extensionsDir, env });

    codeServer = spawnCodeServer({ tmp, env, userDataDir, extensionsDir, trust, workspaceFolder });
    const port = await waitForListening(codeServer, codeServerLog, timeoutMs);

    browser = await launchBrowser({ tmp, xdgConfigHome: env.XDG_CONFIG_HOME });
    const { context, page } = await openPage(browser, { viewport: o.viewport, consoleLog });

    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspaceFolder)}`;
    const host = withHelper ? hostClient(bridge, token) : undefined;

    /** Loads (or reloads) the window and waits for the workbench and the helper. */
    const load = async (how) => {
      const before = bridge?.hellos.length ?? 0;
      if (how === 'reload') await page.reload({ waitUntil: 'domcontentloaded' });
      else await page.goto(url, { waitUntil: 'domcontentloaded' });
      await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
      // The status bar is rendered once the workbench has restored its parts.
      await page.locator('#workbench\\.parts\\.statusbar').waitFor({ timeout: timeoutMs });
      if (withHelper) await bridge.waitForHello(before, timeoutMs);
    };

    const screenshot = async (shotName, opts = {}) => {
      const file = path.join(artifactsDir, `${slug(shotName)}.png`);
      await page.screenshot({ path: file, ...opts });
      return file;
    };

    /** Waits for VS Code's modal dialog, returns its text and clicks `button` (null: leave it open). */
    const answerDialog = async (button = 'Yes', { timeoutMs: t = 30_000 } = {}) => {
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: t });
      const text = (await dialog.innerText()).trim();
      if (button !== null) {
        await dialog.getByRole('button', { name: button, exact: true }).click();
        await dialog.waitFor({ state: 'hidden', timeout: t });
      }
      return text;
    };

    const editor = {
      page,
      browser,
      context,
      url,
      port,
      name,
      logsDir,
      userDataDir,
      extensionsDir,
      artifactsDir,
      workspaceFolder,
      host,
      answerDialog,
      screenshot,
      close,
      /** Reloads the window (new extension host) and waits as at startup. */
      reload: () => load('reload'),
      /**
       * Runs a command. Without args: through the command palette, typed by id
       * (VS Code matches ids there) or by `label` when given, as a person would.
       * With args (the palette cannot pass any): in the host, returning its result.
       */
      run: async (commandId, ...args) => {
        if (args.length) {
          if (!host) throw new Error('run() with args needs the helper extension');
          return host.executeCommand(commandId, ...args);
        }
        return runFromPalette(page, commandId);
      },
      runFromPalette: (text) => runFromPalette(page, text),
      /** Presses a key chord in the workbench, e.g. one bound via launchEditor({ keybindings }). */
      press: async (keys) => {
        await focusWorkbench(page);
        await page.keyboard.press(keys);
      },
      /**
       * Starts every registered MCP server and waits until `tool` (a full
       * vscode.lm.tools name) is live. Retries startServer: right after
       * activation VS Code may not have resolved the provider's servers yet,
       * and then startServer('*') returns at once having started nothing.
       */
      startMcpServers: async ({ tool, timeoutMs: t = 60_000 } = {}) => {
        const end = Date.now() + t;
        for (;;) {
          await host.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
          const tools = await host.tools('mcp_');
          if (tool ? tools.some((x) => x.name === tool) : tools.length > 0) return tools;
          if (Date.now() > end) throw new Error(`MCP tool ${tool || '(any)'} not live after ${t}ms; mcp tools: ${tools.map((x) => x.name).join(', ') || 'none'}`);
          await sleep(500);
        }
      },
      /**
       * Lets tool calls through without the confirmation dialog: the global
       * auto-approve setting plus VS Code's own test-mode context key, which
       * skips its one-time "Enable global auto approve?" opt-in. Renderer
       * state: call it again after reload().
       */
      autoApproveTools: async () => {
        await host.updateConfiguration('chat.tools.global', 'autoApprove', true);
        await host.executeCommand('setContext', 'vscode.chat.tools.global.autoApprove.testMode', true);
      },
      /**
       * invokeTool as an agent calls it, answering VS Code's confirmation if
       * one appears. Returns { result, dialog } (dialog: its text, or null when
       * none appeared, e.g. with auto-approval).
       */
      invokeTool: async (toolName, input, { button = 'Yes', timeoutMs: t = 60_000 } = {}) => {
        const call = host.invokeTool(toolName, input, { timeoutMs: t });
        let dialog = null;
        const seen = answerDialog(button, { timeoutMs: t }).then((txt) => { dialog = txt; }, () => {});
        const result = await call;
        // If the call finished first there was no dialog; stop waiting for one.
        await Promise.race([seen, sleep(300)]);
        return { result, dialog };
      },
      /**
       * A contributed tree view's rows as a Playwright locator (for clicks,
       * context menus). Opens the view with its `<viewId>.focus` command; the
       * DOM marks the view's list only by its name (aria-label), which we look
       * up in the contributing extension's package.json.
       */
      viewRows: async (viewId) => {
        await (host ? host.executeCommand(`${viewId}.focus`) : runFromPalette(page, `${viewId}.focus`));
        const viewName = host ? await host.evaluate((vscode, id) => {
          for (const ext of vscode.extensions.all) {
            for (const views of Object.values(ext.packageJSON.contributes?.views || {})) {
              const v = views.find((x) => x.id === id);
              if (v) return v.name;
            }
          }
          return null;
        }, viewId) : null;
        if (!viewName) throw new Error(`no contributed view ${viewId}`);
        return page.locator(`.pane-body .monaco-list[aria-label="${viewName.replace(/"/g, '\\"')}"] .monaco-list-row`);
      },
      /** Visible text of a view's rows, top to bottom (waits for at least one row unless allowEmpty). */
      viewText: async (viewId, { timeoutMs: t = 15_000, allowEmpty = false } = {}) => {
        const rows = await editor.viewRows(viewId);
        if (!allowEmpty) await rows.first().waitFor({ timeout: t });
        const items = await rows.evaluateAll((els) => els
          .map((e) => ({ index: Number(e.dataset.index), text: e.innerText.trim(), level: Number(e.getAttribute('aria-level')), expanded: e.getAttribute('aria-expanded') }))
          .sort((a, b) => a.index - b.index));
        return { rows: items.map((r) => r.text), items };
      },
      /** Extension host log text (one entry per log file), for diagnosis. */
      hostLogs: () => readHostLogs(logsDir),
    };

    await load('goto');
    return editor;
  } catch (err) {
    // Leave a picture and the logs of what went wrong, then clean up.
    try { await browser?.contexts()[0]?.pages()[0]?.screenshot({ path: path.join(artifactsDir, 'launch-failure.png') }); } catch { /* no page */ }
    await close();
    err.message += `\n(artifacts and logs: ${artifactsDir})`;
    throw err;
  }
}
