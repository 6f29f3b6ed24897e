// Proves the e2e infrastructure with the probe extension: code-server +
// Chromium start, the in-host bridge works, VS Code's own MCP client starts a
// server the probe registers, lists and invokes its tool (with and without the
// confirmation dialog), a command runs from the palette, a tree view is read
// from the DOM, and a reload keeps workspace state.
// Run: node scripts/e2e-setup.mjs && node --test test/e2e/probe.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launchEditor, probeExtensionDir, withFailureScreenshot } from './harness.mjs';
import { startEchoMcpServer } from './echo-mcp-server.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
// VS Code names MCP tools mcp_<server's own name from initialize>_<tool>, not after the definition's label.
const ECHO_TOOL = 'mcp_probe-echo_echo';

describe('e2e infrastructure (probe extension in code-server)', { timeout: 300_000 }, () => {
  let mcp;
  let editor;
  const step = (name, fn) => withFailureScreenshot(() => editor, name, fn);

  before(async () => {
    mcp = await startEchoMcpServer();
    editor = await launchEditor({
      name: 'probe',
      vsixOrExtensionDir: probeExtensionDir,
      workspaceFolder: path.join(here, 'fixtures', 'probe-workspace'),
      checks: [path.join(here, 'checks', 'probe-checks.cjs')],
      env: { MCC_PROBE_MCP_URL: mcp.url, MCC_PROBE_MCP_TOKEN: mcp.token },
      keybindings: [{ key: 'ctrl+alt+shift+h', command: 'mccProbe.hello' }],
    });
  });

  after(async () => {
    await editor?.close();
    await mcp?.close();
  });

  test('the helper runs in the extension host and reads the probe API', step('host-api', async () => {
    const ping = await editor.host.ping();
    assert.equal(ping.version, '1.139.1');
    const ws = await editor.host.workspace();
    assert.equal(ws.isTrusted, true);
    const api = await editor.host.check('probeApi');
    assert.equal(api.mcpUrlSet, true);
  }));

  test('VS Code starts the MCP server and lists its tool in vscode.lm.tools', step('mcp-start', async () => {
    await editor.startMcpServers({ tool: ECHO_TOOL });
    // VS Code asks the provider lazily, when a server is wanted.
    assert.ok((await editor.host.check('probeApi')).provideCalls >= 1, 'VS Code called provideMcpServerDefinitions');
    const info = await editor.host.check('toolInfo', { name: ECHO_TOOL });
    assert.equal(info.inputSchema.properties.text.type, 'string');
    assert.ok(mcp.requests.every((r) => r.auth), 'every request carried the Authorization header');
    assert.match(mcp.requests[0].userAgent, /code-server\/1\.139\.1/);
  }));

  test('invokeTool shows the confirmation dialog; clicking Yes lets it through', step('invoke-yes', async () => {
    const { result, dialog } = await editor.invokeTool(ECHO_TOOL, { text: 'hello' }, { button: 'Yes' });
    assert.match(dialog, /Run echo/);
    assert.equal(result.text, 'echo: hello');
    assert.equal(mcp.calls.at(-1).text, 'hello');
    assert.ok(mcp.calls.at(-1).sessionId, 'the call came in an MCP session');
  }));

  test('clicking Cancel in the dialog stops the call', step('invoke-cancel', async () => {
    const before = mcp.calls.length;
    await assert.rejects(editor.invokeTool(ECHO_TOOL, { text: 'never' }, { button: 'Cancel' }), /cancel/i);
    assert.equal(mcp.calls.length, before, 'the server never saw the cancelled call');
  }));

  test('a command runs from the command palette by its id', step('palette', async () => {
    const { helloCount } = await editor.host.check('probeApi');
    await editor.run('mccProbe.hello');
    await editor.page.getByText(`Hello from the probe (${helloCount + 1})`).first().waitFor({ timeout: 10_000 });
    assert.equal((await editor.host.check('probeApi')).helloCount, helloCount + 1);
  }));

  test('a command runs from a keybinding', step('keybinding', async () => {
    const { helloCount } = await editor.host.check('probeApi');
    await editor.press('Control+Alt+Shift+KeyH');
    await editor.page.getByText(`Hello from the probe (${helloCount + 1})`).first().waitFor({ timeout: 10_000 });
  }));

  test('a tree view is read from the DOM and screenshotted', step('tree-view', async () => {
    const { rows } = await editor.viewText('mccProbe.items');
    assert.deepEqual(rows.slice(0, 2), ['alpha = "one"', 'beta = 2']);
    await editor.screenshot('probe-tree-view');
  }));

  test('after a reload the host comes back, workspace state is kept and tools still work', step('reload', async () => {
    const before = (await editor.host.check('probeApi')).workspaceState.activations;
    await editor.reload();
    const after = (await editor.host.check('probeApi')).workspaceState.activations;
    assert.equal(after, before + 1);
    await editor.startMcpServers({ tool: ECHO_TOOL });
    const { result } = await editor.invokeTool(ECHO_TOOL, { text: 'again' });
    assert.equal(result.text, 'echo: again');
  }));

  test('auto-approval (setting + test-mode context key) skips the dialog', step('auto-approve', async () => {
    await editor.autoApproveTools();
    const { result, dialog } = await editor.invokeTool(ECHO_TOOL, { text: 'auto' });
    assert.equal(dialog, null);
    assert.equal(result.text, 'echo: auto');
  }));
});

describe('Restricted Mode (trust enabled, not granted)', { timeout: 120_000 }, () => {
  let editor;
  const step = (name, fn) => withFailureScreenshot(() => editor, name, fn);

  before(async () => {
    editor = await launchEditor({
      name: 'probe-restricted',
      vsixOrExtensionDir: probeExtensionDir,
      workspaceFolder: path.join(here, 'fixtures', 'probe-workspace'),
      trust: false,
    });
  });

  after(async () => {
    await editor?.close();
  });

  test('the workspace is untrusted and extensions that support it still run', step('restricted', async () => {
    assert.equal((await editor.host.workspace()).isTrusted, false);
    await editor.host.extension('mcc-test.mcc-e2e-probe'); // activates it if VS Code has not yet
    const { rows } = await editor.viewText('mccProbe.items');
    assert.ok(rows.includes('mcp url: missing'));
    await editor.screenshot('restricted-mode');
  }));
});
