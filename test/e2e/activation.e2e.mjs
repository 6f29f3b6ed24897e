// A window with no catalog and no MCC use starts nothing; asking VS Code for
// MCP servers ("MCP: List Servers", or agent mode) activates MCC through its
// MCP collection (onMcpCollection:mcc.servers), and then the session tools
// work there as anywhere: no catalog is needed to stash and read variables.
//
//   node scripts/e2e-test.mjs test/e2e/activation.e2e.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, getSession, mccEditor, OUR_TOOLS, sleep, T, viewPaneText } from './mcc-helpers.mjs';

/** A project folder with no tool catalog in it. */
function plainFolder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-e2e-plain-'));
  fs.writeFileSync(path.join(dir, 'README.md'), '# A project without a tool catalog\n');
  return dir;
}

describe('MCC in a window with no catalog', { timeout: 240_000 }, () => {
  const m = mccEditor({ name: 'mcc-no-catalog', workspace: plainFolder });
  const step = m.step;

  test('nothing of MCC starts in a window with no catalog until it is used', step('idle', async () => {
    const editor = m.editor;
    // Long enough for startup activation events (onStartupFinished, workspaceContains) to have fired.
    await sleep(5000);
    assert.equal(await editor.host.check('isActive'), false, 'the extension activated in a window with no catalog and no MCC use');
    const statusBar = await editor.page.locator('#workbench\\.parts\\.statusbar').innerText();
    assert.doesNotMatch(statusBar, /\bMCC\b/, 'an MCC status bar item is shown');
    assert.equal((await editor.host.tools('mcp_mcc_')).length, 0);
  }));

  test('MCP: List Servers activates MCC through its MCP collection and lists its server', step('list-servers', async () => {
    const editor = m.editor;
    // "MCP: List Servers" (code-server, with no chat model, keeps it out of the
    // palette, so the host runs it; it resolves once its quick pick closes).
    const closed = editor.host.executeCommand('workbench.mcp.listServer');
    const pick = editor.page.locator('.quick-input-widget');
    const text = await eventually(async () => {
      const t = await pick.innerText();
      return /\bMCC\b/.test(t) ? t : false;
    });
    await editor.screenshot('list-servers');
    await editor.page.keyboard.press('Escape');
    await closed;
    assert.match(text, /\bMCC\b/);
    assert.equal(await editor.host.check('isActive'), true);
  }));

  test('its session tools work without a catalog, and the Tools view offers to create one', step('session-tools', async () => {
    const editor = m.editor;
    const tools = await editor.startMcpServers({ tool: T('set_session') });
    for (const n of OUR_TOOLS) assert.ok(tools.some((t) => t.name === n), `${n} not live`);
    await editor.autoApproveTools();
    await editor.invokeTool(T('set_session'), { name: 'note', value: 'no catalog needed' });
    assert.equal(await getSession(editor, 'note'), 'no catalog needed');
    assert.deepEqual((await editor.host.check('mccInfo')).tools, []);
    const pane = await eventually(async () => {
      const t = await viewPaneText(editor, 'mcc.tools');
      return /has no tool catalog/.test(t) ? t : false;
    });
    assert.match(pane, /Create tools\.yaml/);
  }));
});
