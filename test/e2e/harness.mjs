// End-to-end harness: a real VS Code (code-server) driven by Debian's
// Chromium through playwright-core, plus a bridge into the extension host.
// Toolchain comes from scripts/e2e-setup.mjs (cached outside the repo).
//
//   const editor = await launchEditor({ vsixOrExtensionDir, workspaceFolder });
//   await editor.host.executeCommand('workbench.mcp.startServer', '*', {...});
//   await editor.screenshot('sessions-view');
//   await editor.close();
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertReady, paths } from '../../scripts/e2e-paths.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const artifactsRoot = path.join(repoRoot, 'test-artifacts', 'e2e');
export const helperExtensionDir = path.join(here, 'helper-extension');
export const probeExtensionDir = path.join(here, 'probe-extension');

// From the doc, plus: every host but loopback resolves to nothing and any
// proxied request goes to a dead loopback port, so the browser cannot reach
// the internet even if the workbench tries (gallery, CDN, telemetry).
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=127.0.0.1;localhost',
];

// Settings that keep a test window quiet and deterministic.
const DEFAULT_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.enableExperiments': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
  'workbench.editor.restoreViewState': false,
};

const FATAL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A file-system-safe name for artifacts. */
function slug(s) {
  return String(s).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'run';
}

function readJsonIfExists(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return undefined; }
}

/**
 * Puts an unpacked extension folder where code-server finds it. VS Code keeps
 * a registry (extensions.json) once anything was installed through the CLI;
 * a folder missing from it is ignored, so we add an entry when it exists.
 */
function installExtensionFolder(srcDir, extensionsDir) {
  const pkg = JSON.parse(fs.readFileSync(path.join(srcDir, 'package.json'), 'utf8'));
  const id = `${pkg.publisher}.${pkg.name}`.toLowerCase();
  const folder = `${id}-${pkg.version}`;
  const dest = path.join(extensionsDir, folder);
  fs.rmSync(dest, { recursive: true, force: true });
  // A copy, not a symlink: the extension must not see (or write to) the repo.
  fs.cpSync(srcDir, dest, { recursive: true, filter: (p) => !p.includes(`${path.sep}node_modules${path.sep}.cache`) });
  const registry = path.join(extensionsDir, 'extensions.json');
  const entries = readJsonIfExists(registry);
  if (Array.isArray(entries)) {
    const kept = entries.filter((e) => e.identifier?.id?.toLowerCase() !== id);
    kept.push({
      identifier: { id },
      version: pkg.version,
      location: { $mid: 1, path: dest, scheme: 'file' },
      relativeLocation: folder,
      metadata: { installedTimestamp: Date.now(), source: 'resource' },
    });
    fs.writeFileSync(registry, JSON.stringify(kept));
  }
  return id;
}

/** Runs code-server's CLI (install/list) with Node 24, synchronously. */
function codeServerCli(args, { env }) {
  const r = spawnSync(paths.node, [paths.codeServer, ...args], { encoding: 'utf8', env, timeout: 180_000 });
  if (r.status !== 0) {
    throw new Error(`code-server ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/**
 * The test side of the bridge: a loopback HTTP server the helper extension
 * announces itself to (POST /hello). Requests then go straight to the helper.
 */
async function startBridge(token) {
  let current; // { port, pid, sessionId }
  let waiters = [];
  const hellos = [];
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/hello' || req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        current = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        hellos.push({ ...current, at: Date.now() });
        res.writeHead(204).end();
        const w = waiters;
        waiters = [];
        for (const fn of w) fn();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hellos,
    get current() { return current; },
    /** Resolves when a helper newer than `after` (a hello count) has announced itself. */
    waitForHello(after, timeoutMs) {
      if (hellos.length > after) return Promise.resolve(current);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the helper extension did not connect within ${timeoutMs}ms`)), timeoutMs);
        waiters.push(() => { clearTimeout(timer); resolve(current); });
      });
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Client for the helper extension's ops (see helper-extension/extension.js). */
function hostClient(bridge, token) {
  const call = async (op, args = {}, { timeoutMs = 120_000 } = {}) => {
    if (!bridge.current) throw new Error('helper extension not connected');
    const body = JSON.stringify({ op, ...args });
    const res = await fetch(`http://127.0.0.1:${bridge.current.port}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const reply = await res.json();
    if (!reply.ok) {
      const err = new Error(`in-host ${op} failed: ${reply.error?.message}`);
      err.hostStack = reply.error?.stack;
      throw err;
    }
    return reply.value;
  };
  return {
    call,
    ping: () => call('ping'),
    executeCommand: (command, ...args) => call('executeCommand', { command, args }),
    tools: (prefix) => call('tools', { prefix }),
    waitForTool: (name, timeoutMs = 30_000) => call('waitForTool', { name, timeoutMs }, { timeoutMs: timeoutMs + 5000 }),
    /** Resolves when VS Code lets the call through; a confirmation dialog may block it (see editor.invokeTool). */
    invokeTool: (name, input, opts = {}) => call('invokeTool', { name, input, timeoutMs: opts.timeoutMs }, opts),
    extension: (id, activate = true) => call('extension', { id, activate }),
    workspace: () => call('workspace'),
    configuration: (section, key) => call('configuration', { section, key }),
    updateConfiguration: (section, key, value, target) => call('updateConfiguration', { section, key, value, target }),
    /** A named check from a module listed in launchEditor({ checks }). */
    check: (name, args) => call('check', { name, args }),
    /** Runs fn(vscode, args, ctx, require) in the extension host; fn must be self-contained. */
    evaluate: (fn, args) => call('evaluate', { source: fn.toString(), args }),
  };
}

/** Reads the last lines of each extension-host log, to explain a failure. */
function readHostLogs(logsDir) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/exthost\.log$|remoteagent\.log$/.test(e.name)) out.push({ file: p, text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(logsDir);
  return out;
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
 * @param {object} [o.settings] user settings, merged over DEFAULT_SETTINGS
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
  const deadLoopback = 'http://127.0.0.1:9';
  const env = {
    ...process.env,
    PATH: `${paths.nodeBinDir}${path.delimiter}${process.env.PATH}`,
    // Keep code-server's own config out of $HOME.
    XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
    XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
    // No extension gallery traffic: point it at a dead loopback port.
    EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: `${deadLoopback}/gallery`, itemUrl: `${deadLoopback}/item`, resourceUrlTemplate: `${deadLoopback}/{publisher}/{name}/{version}/{path}` }),
    // Anything server-side that honours proxies goes nowhere; loopback stays direct.
    http_proxy: deadLoopback, https_proxy: deadLoopback, HTTP_PROXY: deadLoopback, HTTPS_PROXY: deadLoopback,
    no_proxy: '127.0.0.1,localhost', NO_PROXY: '127.0.0.1,localhost',
    ...o.env,
  };
  delete env.NODE_OPTIONS; // the test runner's flags must not leak into code-server
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_')) delete env[k];

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
    if (codeServer && codeServer.exitCode === null && codeServer.signalCode === null) {
      const exited = new Promise((r) => codeServer.once('exit', r));
      try { process.kill(-codeServer.pid, 'SIGTERM'); } catch { /* gone */ }
      const t = setTimeout(() => { try { process.kill(-codeServer.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      await exited;
      clearTimeout(t);
    }
    // The group may still hold children (extension host, pty) after the leader left.
    try { if (codeServer?.pid) process.kill(-codeServer.pid, 'SIGKILL'); } catch { /* none left */ }
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

    // User settings before first start, so they apply from the first frame.
    const settingsFile = path.join(userDataDir, 'User', 'settings.json');
    const settings = {
      ...DEFAULT_SETTINGS,
      ...(readJsonIfExists(settingsFile) || {}), // a reused userDataDir keeps its settings
      'security.workspace.trust.enabled': !trust,
      ...o.settings,
    };
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    if (o.keybindings) fs.writeFileSync(path.join(userDataDir, 'User', 'keybindings.json'), JSON.stringify(o.keybindings, null, 2));

    // Extensions: VSIXs through the CLI first (that creates extensions.json), then folders.
    const sources = [o.vsixOrExtensionDir ?? []].flat();
    const base = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
    for (const src of sources.filter((s) => s.endsWith('.vsix'))) {
      codeServerCli([...base, '--force', '--install-extension', path.resolve(src)], { env });
    }
    const folders = sources.filter((s) => !s.endsWith('.vsix'));
    if (withHelper) folders.push(helperExtensionDir);
    for (const dir of folders) installExtensionFolder(path.resolve(dir), extensionsDir);

    // Port 0: code-server picks a free port and prints it (no race with a probe port).
    const args = [
      paths.codeServer,
      '--auth', 'none', '--bind-addr', '127.0.0.1:0',
      '--config', path.join(tmp, 'code-server.yaml'),
      ...base,
      '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
      '--ignore-last-opened',
      ...(trust ? ['--disable-workspace-trust'] : []),
      workspaceFolder,
    ];
    fs.writeFileSync(path.join(tmp, 'code-server.yaml'), 'auth: none\n');
    codeServer = spawn(paths.node, args, { env, cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const port = await new Promise((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`code-server did not start within ${timeoutMs}ms:\n${buf}`)), timeoutMs);
      const onData = (chunk) => {
        codeServerLog.write(chunk);
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
    codeServer.stdout.pipe(codeServerLog, { end: false });
    codeServer.stderr.pipe(codeServerLog, { end: false });

    const { chromium } = await import(pathToFileURL(paths.playwrightCore).href);
    browser = await chromium.launch({
      executablePath: paths.chromium,
      args: CHROMIUM_ARGS,
      headless: true,
      // Chromium's crash database and caches go to the throw-away dir, not $HOME.
      env: { ...process.env, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, XDG_CACHE_HOME: path.join(tmp, 'xdg-cache') },
    });
    const context = await browser.newContext({ viewport: o.viewport || { width: 1400, height: 900 } });
    const page = await context.newPage();
    page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => consoleLog.write(`[pageerror] ${e.message}\n`));

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

/** Gives the page keyboard focus without clicking anything that acts (Escape closes stray widgets). */
async function focusWorkbench(page) {
  await page.bringToFront();
  await page.keyboard.press('Escape');
}

/** Opens the command palette, types `text`, runs the first match. */
async function runFromPalette(page, text) {
  await focusWorkbench(page);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${text}`);
  const first = page.locator('.quick-input-widget .monaco-list-row').first();
  await first.waitFor({ state: 'visible', timeout: 10_000 });
  // Let the list settle on the filtered result before accepting it.
  await page.waitForTimeout(300);
  const label = (await first.innerText()).trim();
  await input.press('Enter');
  return { label };
}

/**
 * Wraps a test body so a failure leaves a screenshot named after the step in
 * test-artifacts/e2e/<run>/. getEditor is a function because the editor is
 * usually created in before().
 */
export function withFailureScreenshot(getEditor, stepName, fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      const ed = getEditor();
      const file = await ed?.screenshot(`FAILED-${stepName}`).catch(() => undefined);
      if (file) err.message += `\n(screenshot: ${file})`;
      throw err;
    }
  };
}
