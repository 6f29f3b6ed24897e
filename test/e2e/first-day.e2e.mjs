// What a new user met on the first day, each checked in the real editor:
// values that are not JSON, lists and objects edited as JSON in a tab, tool
// tooltips as Markdown, the status menu's first choice, why a run failed,
// and one reload (with the Sessions view following) per save of tools.yaml.
// It also takes the README's screenshots from the same window:
//
//   node scripts/e2e-test.mjs test/e2e/first-day.e2e.mjs
//   MCC_E2E_UPDATE_MEDIA=1 node scripts/e2e-test.mjs test/e2e/first-day.e2e.mjs   # and copy them to media/
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './harness.mjs';
import { catalogLoads, clickMenuItem, eventually, mccEditor, rowFor, rowLocator, sleep, T, viewRows } from './mcc-helpers.mjs';

const toasts = (editor, text) => editor.page.locator('.notifications-toasts .notification-toast', { hasText: text });
const quickInput = (editor) => editor.page.locator('.quick-input-widget');

describe('MCC on the first day (trusted workspace)', { timeout: 420_000 }, () => {
  const m = mccEditor({
    name: 'mcc-first-day',
    viewport: { width: 1280, height: 800 },
    settings: { 'mcc.terminal.reveal': 'always', 'terminal.integrated.gpuAcceleration': 'off', 'workbench.hover.delay': 300 },
    ready: async (editor) => {
      await editor.host.check('mccInfo');
      await editor.startMcpServers({ tool: T('set_session') });
      await editor.autoApproveTools();
      await editor.invokeTool(T('set_session'), { name: 'target', value: '10.0.0.5' });
      await editor.invokeTool(T('set_session'), { name: 'hosts', value: ['alpha', 'beta'] });
      await editor.invokeTool(T('set_session'), { name: 'deploy', value: { region: 'eu', replicas: 2 } });
    },
  });
  const step = m.step;

  test('Add Variable: text that is not JSON is stored as text with one Enter, after the box says so', step('add-text', async () => {
    const editor = m.editor;
    const done = editor.host.executeCommand('mcc.sessions.addVariable');
    const input = quickInput(editor).locator('input.input');
    await input.waitFor({ state: 'visible' });
    await input.fill('note');
    await input.press('Enter');
    await quickInput(editor).locator('.quick-input-title', { hasText: "Value of 'note'" }).waitFor();
    await input.fill('deploy to staging');
    const message = await eventually(async () => {
      const m = await quickInput(editor).locator('.quick-input-message').innerText();
      return /Enter stores it as the text/.test(m) ? m : false;
    });
    assert.match(message, /Not JSON: Enter stores it as the text "deploy to staging"/);
    await input.press('Enter');
    await done;
    assert.equal((await editor.host.check('ownVars')).note, 'deploy to staging');
  }));

  test('Edit Value on an object opens formatted JSON in a tab; a save stores it, invalid JSON is refused with why', step('json-tab', async () => {
    const editor = m.editor;
    const row = await eventually(async () => {
      const r = await rowLocator(editor, 'mcc.sessions', 'deploy');
      return (await r.count()) ? r : false;
    });
    await row.click({ button: 'right' });
    await clickMenuItem(editor, 'Edit Value');
    const doc = await eventually(async () => {
      const d = await editor.host.check('activeDocument');
      return d?.scheme === 'mcc-session' ? d : false;
    });
    assert.match(doc.path, /\/deploy\.json$/);
    assert.equal(doc.languageId, 'json');
    assert.equal(doc.text, '{\n  "region": "eu",\n  "replicas": 2\n}\n');

    await editor.host.check('setActiveText', { text: '{\n  "region": "eu",\n  "replicas": 3\n' });
    await editor.host.executeCommand('workbench.action.files.save');
    const refused = toasts(editor, /was not saved/).first();
    await refused.waitFor({ timeout: 15_000 });
    assert.match(await refused.innerText(), /'deploy' was not saved: the JSON is invalid \(.+\)\. Fix it and save again\./);
    await editor.screenshot('json-tab-invalid');
    assert.deepEqual((await editor.host.check('ownVars')).deploy, { region: 'eu', replicas: 2 }, 'invalid JSON changed the value');
    assert.equal((await editor.host.check('activeDocument')).isDirty, true, 'the edited text was lost');

    await editor.host.executeCommand('notifications.clearAll');
    await editor.host.check('setActiveText', { text: '{ "region": "eu", "replicas": 3 }' });
    await editor.host.executeCommand('workbench.action.files.save');
    await eventually(async () => (await editor.host.check('ownVars')).deploy?.replicas === 3);
    await eventually(async () => (await editor.host.check('activeDocument'))?.isDirty === false);
    await eventually(async () => /\{2 keys\}/.test(rowFor(await viewRows(editor, 'mcc.sessions'), 'deploy') ?? ''));
    await editor.host.executeCommand('workbench.action.closeAllEditors');
  }));

  test("a tool's tooltip renders its Markdown description (no literal ##)", step('tooltip', async () => {
    const editor = m.editor;
    await expandToolGroups(editor);
    const row = await rowLocator(editor, 'mcc.tools', 'show_ctx');
    await row.hover();
    const hover = editor.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'e2e.show_ctx' }).first();
    await hover.waitFor({ state: 'visible', timeout: 15_000 });
    const text = await hover.innerText();
    assert.doesNotMatch(text, /##/);
    assert.equal(await hover.locator('h2', { hasText: 'Output' }).count(), 1, `no rendered heading in: ${text}`);
    assert.ok(await hover.locator('li code', { hasText: 'target=' }).count() > 0, `no rendered list in: ${text}`);
    await editor.screenshot('tool-tooltip');
    await editor.page.mouse.move(700, 500);
  }));

  test("the status bar menu's preselected first choice is Show Logs", step('status-menu', async () => {
    const editor = m.editor;
    await editor.page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: /MCC :\d+/ }).first().click();
    const focused = quickInput(editor).locator('.monaco-list-row.focused');
    await focused.waitFor({ state: 'visible' });
    assert.match(await focused.innerText(), /Show Logs/);
    const rows = await quickInput(editor).locator('.monaco-list-row').allInnerTexts();
    assert.match(rows[rows.length - 1], /Restart Server/);
    await editor.page.keyboard.press('Escape');
  }));

  test("the README's screenshots: the Sessions and Tools views, and a run in the terminal", step('store-screenshots', async () => {
    const editor = m.editor;
    await editor.host.executeCommand('notifications.clearAll');
    await editor.host.evaluate(async (vscode) => {
      const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders[0].uri, 'tools.yaml');
      await vscode.window.showTextDocument(uri, { preview: false });
    });
    await editor.run('mcc.tools.run', 'e2e.show_ctx', {});
    await expandToolGroups(editor);
    const terminal = await eventually(async () => {
      const t = (await editor.page.locator('.terminal-wrapper .xterm-rows').allInnerTexts()).join('\n');
      return /e2e-terminal-marker/.test(t) ? t : false;
    });
    assert.match(terminal, /target=10\.0\.0\.5/);
    const rows = await viewRows(editor, 'mcc.sessions');
    assert.ok(rowFor(rows, 'target') && rowFor(rows, 'hosts'), rows.join(' | '));
    await editor.host.executeCommand('notifications.clearAll');
    await editor.page.mouse.move(700, 300);
    await sleep(500);
    const views = await editor.screenshot('store-views');
    const panel = path.join(editor.artifactsDir, 'store-terminal.png');
    await editor.page.locator('.part.panel').screenshot({ path: panel });
    for (const f of [views, panel]) assert.ok(fs.statSync(f).size > 10_000, `${f} is (nearly) empty`);
    if (process.env.MCC_E2E_UPDATE_MEDIA) {
      fs.copyFileSync(views, path.join(repoRoot, 'media', 'screenshot-views.png'));
      fs.copyFileSync(panel, path.join(repoRoot, 'media', 'screenshot-terminal.png'));
    }
  }));

  test("a failed run's notification says why it failed", step('failed-run', async () => {
    const editor = m.editor;
    await editor.host.executeCommand('notifications.clearAll');
    const result = await editor.run('mcc.tools.run', 'e2e.slow', {});
    assert.equal(result.isError, true);
    const toast = toasts(editor, 'MCC e2e.slow failed').first();
    await toast.waitFor({ timeout: 15_000 });
    assert.match(await toast.innerText(), /MCC e2e\.slow failed: timeout after 1s/);
    await editor.host.executeCommand('notifications.clearAll');
    // The status menu counts it among the last minute's calls and failures.
    await editor.page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: /MCC :\d+/ }).first().click();
    await quickInput(editor).locator('.monaco-list-row.focused').waitFor({ state: 'visible' });
    const rows = await quickInput(editor).locator('.monaco-list-row').allInnerTexts();
    assert.ok(rows.some((r) => /e2e\.slow[\s\S]*1 call · 1 failed/.test(r)), rows.join(' / '));
    assert.match(rows[0], /Show Logs/);
    assert.match(rows[rows.length - 1], /Restart Server/);
    await editor.page.keyboard.press('Escape');
  }));

  test("one save of tools.yaml reloads the catalog once, and the Sessions view's tools key follows without Refresh", step('reload-once', async () => {
    const editor = m.editor;
    const toolsRow = async () => rowFor(await viewRows(editor, 'mcc.sessions'), 'tools');
    assert.equal(await eventually(toolsRow), 'tools [3 items] (read-only)');
    const before = catalogLoads(editor);
    assert.ok(before >= 1, 'no catalog load in the MCC log');
    await editor.host.check('appendInEditor', { file: 'tools.yaml', text: '\n  - name: extra\n    description: Added while the editor runs.\n    exec: echo extra\n' });
    await editor.page.keyboard.press('Control+s');
    await eventually(async () => (await editor.host.check('activeDocument'))?.isDirty === false);
    assert.equal(await eventually(async () => ((await toolsRow()) === 'tools [4 items] (read-only)' ? toolsRow() : false)), 'tools [4 items] (read-only)');
    // Watcher events of that save may still arrive: give them time, then count.
    await sleep(3000);
    assert.equal(catalogLoads(editor) - before, 1, 'one save reloaded the catalog more than once');
    assert.ok((await editor.host.check('mccInfo')).tools.includes('e2e.extra'));
    // Late events of the same save (here: the same bytes written again, past
    // the watcher's debounce) change nothing, so they reload nothing.
    const file = path.join(m.workspace, 'tools.yaml');
    const text = fs.readFileSync(file);
    for (let i = 0; i < 2; i++) {
      fs.writeFileSync(file, text);
      await sleep(700);
    }
    await sleep(2000);
    assert.equal(catalogLoads(editor) - before, 1, 'rewriting the same bytes reloaded the catalog');
  }));
});

/** Expands the Tools view's collapsed groups. */
async function expandToolGroups(editor) {
  await eventually(async () => {
    const { items } = await editor.viewText('mcc.tools');
    for (const item of items) {
      if (item.expanded === 'false') await (await editor.viewRows('mcc.tools')).nth(item.index).click();
    }
    return (await editor.viewText('mcc.tools')).rows.some((r) => /show_ctx/.test(r));
  });
}
