// Shared by the MCC end-to-end suites: the VSIX under test, a throw-away
// copy of the fixture workspace, and reading MCC's views and tools as a
// person and an agent see them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launchEditor, repoRoot, withFailureScreenshot } from './harness.mjs';
import { packageVsix } from '../../scripts/package.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
/** The id users install: publisher.name from the manifest. */
export const EXT_ID = `${manifest.publisher}.${manifest.name}`;
export const OWNER = 'e2e-owner';
// VS Code names MCP tools mcp_<serverInfo.name>_<tool>; our server is `mcc`.
export const T = (tool) => `mcp_mcc_${tool}`;
export const OUR_TOOLS = ['search', 'execute', 'describe_tools', 'get_session', 'set_session'].map(T);
export const checks = [path.join(here, 'checks', 'mcc-checks.cjs')];
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The freshly built VSIX: MCC_E2E_VSIX, or one packaged now unless a fresh one exists. */
export async function freshVsix() {
  if (process.env.MCC_E2E_VSIX) return path.resolve(process.env.MCC_E2E_VSIX);
  const target = `${process.platform}-${process.arch}`;
  const vsix = path.join(repoRoot, 'dist-vsix', `mcc-vscode-${target}.vsix`);
  const inputs = ['dist/extension.js', 'package.json', '.vscodeignore'].map((f) => path.join(repoRoot, f));
  const fresh = fs.existsSync(vsix) && inputs.every((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs <= fs.statSync(vsix).mtimeMs);
  // scripts/e2e-test.mjs has just built and packaged; run alone, build here.
  if (!fresh || process.env.MCC_E2E_REPACKAGE) await packageVsix({ target, json: true });
  return vsix;
}

/** A copy of the fixture workspace, so nothing the editor does lands in the repo. */
export function workspaceCopy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-e2e-ws-'));
  fs.cpSync(path.join(here, 'fixtures', 'mcc-workspace'), dir, { recursive: true });
  return dir;
}

/** Rows of a tree view as "label description" (e.g. 'target "10.0.0.5"'), top to bottom. */
export async function viewRows(editor, viewId, { allowEmpty = false, timeoutMs = 15_000 } = {}) {
  const rows = await editor.viewRows(viewId);
  if (!allowEmpty) await rows.first().waitFor({ timeout: timeoutMs });
  const items = await rows.evaluateAll((els) => els
    .map((e) => ({
      index: Number(e.dataset.index),
      label: e.querySelector('.label-name')?.textContent?.trim() ?? e.innerText.trim(),
      description: e.querySelector('.label-description')?.textContent?.trim() ?? '',
    }))
    .sort((a, b) => a.index - b.index));
  return items.map((i) => `${i.label} ${i.description}`.trim());
}

/** A view row (Playwright locator) by its exact label. */
export async function rowLocator(editor, viewId, label) {
  const rows = await editor.viewRows(viewId);
  return rows.filter({ has: editor.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) }).first();
}

/**
 * Clicks a context-menu item. VS Code draws the menu in a shadow root (CSS
 * locators pierce it); on a busy machine a click that lands while the menu
 * is still opening is dropped, so it clicks again until the menu closes.
 */
export async function clickMenuItem(editor, label) {
  const item = editor.page.locator('.monaco-menu .action-item:not(.disabled) .action-label', { hasText: new RegExp(`^${label}$`) }).first();
  await item.waitFor({ state: 'visible' });
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!(await item.isVisible())) return;
    await item.click().catch(() => undefined);
    await item.waitFor({ state: 'hidden', timeout: 1500 }).catch(() => undefined);
  }
  if (await item.isVisible()) throw new Error(`the context menu item '${label}' did not respond to clicks`);
}

/** Polls fn until it returns truthy (or throws the last assertion). */
export async function eventually(fn, { timeoutMs = 15_000, everyMs = 300 } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== false && v !== undefined) return v;
      if (Date.now() > end) throw new Error('condition not met in time');
    } catch (err) {
      if (Date.now() > end) throw err;
    }
    await sleep(everyMs);
  }
}

/** get_session through VS Code's MCP client: the JSON-decoded value. */
export async function getSession(editor, name) {
  const { result } = await editor.invokeTool(T('get_session'), { name });
  try {
    return JSON.parse(result.text);
  } catch {
    throw new Error(`get_session ${name} did not answer JSON: ${result.text}`);
  }
}

/** The views' names, as their panes and lists are labelled in the DOM (package.json). */
const VIEW_NAMES = { 'mcc.sessions': 'Sessions', 'mcc.tools': 'Tools' };

/**
 * The text inside one MCC view's pane body: its rows, its message, or its
 * viewsWelcome (text and buttons). Only that pane in the side bar, never
 * the rest of the page.
 */
export async function viewPaneText(editor, viewId) {
  await editor.viewRows(viewId); // opens and focuses the view
  const name = VIEW_NAMES[viewId];
  const pane = editor.page.locator('.part.sidebar .pane').filter({
    has: editor.page.locator(`.pane-header :is(.title, h3)`, { hasText: new RegExp(`^\\s*${name}\\s*$`, 'i') }),
  });
  const body = pane.first().locator('.pane-body');
  await body.waitFor({ state: 'visible', timeout: 15_000 });
  return body.innerText();
}

export function rowFor(rows, name) {
  return rows.find((r) => r === name || r.startsWith(`${name} `));
}

/** How many times the catalog was loaded so far in this window (the MCC log's "catalog loaded" lines). */
export function catalogLoads(editor) {
  let n = 0;
  for (const f of fs.readdirSync(editor.logsDir, { recursive: true }).map(String)) {
    if (!/MCC\.log$/.test(f)) continue;
    n += fs.readFileSync(path.join(editor.logsDir, f), 'utf8').split('\n').filter((l) => /\bcatalog loaded:/.test(l)).length;
  }
  return n;
}

/**
 * In a describe(): launches the VSIX in a real editor before its tests (on
 * `workspace()`, by default a fixture copy; owner OWNER) and closes it and
 * removes the workspace after. `ready(editor)` runs once it is up. Returns
 * { editor, workspace } (set in before) and step(name, fn), which leaves a
 * screenshot when the test fails.
 */
export function mccEditor({ workspace = workspaceCopy, ready, settings, ...launch }) {
  const ctx = {
    editor: undefined,
    workspace: undefined,
    step: (name, fn) => withFailureScreenshot(() => ctx.editor, name, fn),
  };
  before(async () => {
    const vsix = await freshVsix();
    ctx.workspace = workspace();
    ctx.editor = await launchEditor({ vsixOrExtensionDir: vsix, workspaceFolder: ctx.workspace, checks, settings: { 'mcc.identity.user': OWNER, ...settings }, ...launch });
    await ready?.(ctx.editor);
  });
  after(async () => {
    await ctx.editor?.close();
    if (ctx.workspace) fs.rmSync(ctx.workspace, { recursive: true, force: true });
  });
  return ctx;
}
