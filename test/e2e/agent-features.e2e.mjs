// What agents get beyond the five tools, in a real VS Code (code-server)
// with VS Code's own MCP client: each catalog tool as a tool of its own
// (mcc.tools.expose, default auto), one added by a catalog edit and called
// through vscode.lm.invokeTool, and asking for a missing parameter through
// VS Code's elicitation UI; MCC's prompts in the chat input's `/` menu,
// their `key` argument completed by our server; and a live switch of the
// expose mode.
//
//   node scripts/e2e-test.mjs test/e2e/agent-features.e2e.mjs   (packages first)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually, mccEditor, sleep, T } from './mcc-helpers.mjs';

const liveNames = async (editor) => (await editor.host.tools('mcp_mcc_')).map((t) => t.name).sort();

describe('agent features in a real VS Code', { timeout: 300_000 }, () => {
  const m = mccEditor({
    name: 'mcc-agent-features',
    // The chat view (for the `/` menu) is off in the quiet defaults.
    settings: { 'chat.disableAIFeatures': false },
    ready: (editor) => editor.host.check('mccInfo'),
  });
  const step = m.step;

  test('by default (auto, a small catalog) each catalog tool is its own tool next to the catalog tools', step('direct-listed', async () => {
    const editor = m.editor;
    await editor.startMcpServers({ tool: T('e2e__show_ctx') });
    const names = await liveNames(editor);
    for (const n of ['e2e__show_ctx', 'e2e__bump', 'search', 'execute', 'describe_tools', 'get_session', 'set_session']) {
      assert.ok(names.includes(T(n)), `${T(n)} not in vscode.lm.tools: ${names.join(', ')}`);
    }
    const bump = (await editor.host.tools(T('e2e__bump')))[0];
    assert.equal(bump.inputSchema.properties.by.type, 'integer');
    await editor.autoApproveTools();
    const { result } = await editor.invokeTool(T('e2e__bump'), { by: 2 });
    assert.match(result.text, /"counter":\s*2/);
  }));

  test('a catalog edit adds a direct tool; VS Code lists it and vscode.lm.invokeTool runs it', step('direct-added', async () => {
    const editor = m.editor;
    const file = path.join(m.workspace, 'tools.yaml');
    fs.appendFileSync(file, [
      '',
      '  - name: greet',
      '    description: Greets someone (added while the editor runs).',
      '    params:',
      '      - name: who',
      '        description: Whom to greet',
      "    exec: 'echo \"hello, \"{{ who | quote }}'",
      '',
    ].join('\n'));
    const tool = await editor.host.call('waitForTool', { name: T('e2e__greet'), timeoutMs: 30_000 });
    assert.deepEqual(tool.inputSchema.required, ['who']);
    assert.match(tool.description, /Greets someone/);
    const { result } = await editor.invokeTool(T('e2e__greet'), { who: 'VS Code' });
    assert.equal(result.text.trim(), 'hello, VS Code');
    await editor.screenshot('direct-tool-called');
  }));

  test('called without its required parameter, VS Code asks for it (elicitation) and the answer runs the tool', step('elicitation', async () => {
    const editor = m.editor;
    // invokeTool waits for the answer; the person answers in VS Code's own UI meanwhile.
    const call = editor.host.call('invokeTool', { name: T('e2e__greet'), input: {} });
    const respond = editor.page.locator('text=Respond').first();
    await respond.waitFor({ state: 'visible', timeout: 20_000 });
    await editor.screenshot('elicitation-asked');
    await respond.click();
    const picker = editor.page.locator('.quick-input-widget');
    await picker.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await picker.locator('.quick-input-title, .quick-input-header').first().innerText(), /who/);
    await editor.page.keyboard.type('form filler');
    await editor.page.keyboard.press('Enter');
    const result = await call;
    assert.equal(result.text.trim(), 'hello, form filler');
  }));

  test("MCC's prompts are in the chat input's / menu; explain_tool's key completes from our server and resolves", step('prompts', async () => {
    const editor = m.editor;
    await editor.host.executeCommand('workbench.action.chat.open');
    await editor.host.executeCommand('workbench.action.chat.focusInput');
    await sleep(500);
    await editor.page.keyboard.type('/mcp.MCC.');
    const rows = editor.page.locator('.suggest-widget .monaco-list-row');
    const offered = await eventually(async () => {
      const texts = await rows.allInnerTexts();
      return ['find_and_run', 'explain_tool', 'debug_error'].every((p) => texts.some((t) => t.includes(`/mcp.MCC.${p}`))) ? texts : false;
    });
    assert.ok(offered.some((t) => /explain_tool[\s\S]*Explains what a catalog tool does/.test(t)), offered.join(' | '));
    await editor.screenshot('chat-slash-prompts');

    await editor.page.keyboard.type('explain');
    await eventually(async () => (await rows.allInnerTexts()).some((t) => t.includes('/mcp.MCC.explain_tool')));
    await editor.page.keyboard.press('Enter');
    // VS Code asks for the argument; its suggestions come from completion/complete.
    const picker = editor.page.locator('.quick-input-widget');
    await picker.waitFor({ state: 'visible', timeout: 15_000 });
    await editor.page.keyboard.type('e2e.g');
    const suggestion = picker.locator('.monaco-list-row', { hasText: 'e2e.greet' }).first();
    await suggestion.waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await picker.locator('.monaco-list-row', { hasText: 'e2e.bump' }).count(), 0, 'only keys matching what was typed are offered');
    await editor.screenshot('prompt-key-completion');
    await suggestion.click();
    // The prompt's text lands in the chat input (Monaco draws spaces as no-break spaces).
    const input = await eventually(async () => {
      const text = (await editor.page.locator('.interactive-input-part .view-lines').first().innerText()).replace(/\s+/g, ' ');
      return /Explain the MCC catalog tool/.test(text) ? text : false;
    });
    assert.match(input, /Explain the MCC catalog tool 'e2e\.greet' to the user/);
    assert.match(input, /## e2e\.greet \(who:str\) -> str/);
    await editor.screenshot('prompt-resolved');
  }));

  test('switching mcc.tools.expose to catalog removes the direct tools from VS Code at once (no restart)', step('expose-switch', async () => {
    const editor = m.editor;
    await editor.host.updateConfiguration('mcc.tools', 'expose', 'catalog');
    const names = await eventually(async () => {
      const n = await liveNames(editor);
      return n.includes(T('e2e__greet')) ? false : n;
    });
    assert.ok(names.includes(T('execute')) && names.includes(T('search')), names.join(', '));
    assert.ok(!names.some((n) => n.startsWith(T('e2e__'))), names.join(', '));
  }));
});
