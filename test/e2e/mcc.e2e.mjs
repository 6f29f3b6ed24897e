// The real extension, from the VSIX users install, in a real VS Code
// (code-server), called by VS Code's own MCP client as an agent calls it.
// One trusted launch runs checks 1–8 and 10 in order (they build on each
// other's session state); one untrusted launch runs check 9.
//
// Confirmation dialogs: check (10) answers VS Code's "Run <tool>" dialog by
// clicking Yes; every later call runs with auto-approval
// (editor.autoApproveTools(): the global auto-approve setting plus VS Code's
// test-mode context key), renewed after the reload.
//
//   node scripts/e2e-test.mjs test/e2e/mcc.e2e.mjs   (packages first)
//   MCC_E2E_VSIX=path.vsix node --test test/e2e/mcc.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchEditor, withFailureScreenshot } from './harness.mjs';
import {
  checks, clickMenuItem, eventually, executeAnswer, freshVsix, getSession, OUR_TOOLS, OWNER, rowFor, rowLocator, T, viewPaneText, viewRows, workspaceCopy,
} from './mcc-helpers.mjs';

describe('MCC in a real VS Code (trusted workspace)', { timeout: 420_000 }, () => {
  let editor;
  let workspace;
  let info;
  let activatedOnItsOwn;
  const step = (name, fn) => withFailureScreenshot(() => editor, name, fn);

  before(async () => {
    const vsix = await freshVsix();
    workspace = workspaceCopy();
    editor = await launchEditor({
      name: 'mcc-trusted',
      vsixOrExtensionDir: vsix,
      workspaceFolder: workspace,
      checks,
      settings: {
        'mcc.identity.user': OWNER,
        'mcc.terminal.reveal': 'always',
        // DOM renderer: the terminal's text can be read from the page.
        'terminal.integrated.gpuAcceleration': 'off',
      },
    });
    // Nothing here activates it: the workspace's tools.yaml does (workspaceContains).
    activatedOnItsOwn = await eventually(() => editor.host.check('isActive'), { timeoutMs: 30_000 }).catch(() => false);
    info = await editor.host.check('mccInfo');
  });

  after(async () => {
    await editor?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  test('the extension comes from the installed VSIX, not the source folder, and a workspace catalog activates it', step('installed', async () => {
    assert.equal(activatedOnItsOwn, true, 'tools.yaml in the workspace did not activate the extension');
    assert.ok(info.extensionPath.startsWith(editor.extensionsDir), `${info.extensionPath} is not under ${editor.extensionsDir}`);
    assert.ok(!fs.existsSync(path.join(info.extensionPath, 'src')), 'the installed extension has no src/');
    assert.equal(info.owner.user, OWNER);
    assert.deepEqual(info.tools.sort(), ['e2e.bump', 'e2e.show_ctx', 'e2e.slow']);
    // Start-up as the editor sees it, printed for the record (figures belong in the bench, not in asserts).
    assert.ok(info.startup.listeningMs >= 0 && info.startup.readyMs >= info.startup.listeningMs, JSON.stringify(info.startup));
    console.log(`start-up in the editor: activate to listening ${info.startup.listeningMs} ms, to ready (catalog loaded) ${info.startup.readyMs} ms`);
  }));

  test('(1) workbench.mcp.startServer starts our server and our tools appear in vscode.lm.tools', step('1-start', async () => {
    const tools = await editor.startMcpServers({ tool: T('set_session') });
    const names = tools.map((t) => t.name);
    for (const n of OUR_TOOLS) assert.ok(names.includes(n), `${n} not in vscode.lm.tools (${names.join(', ')})`);
  }));

  test("(10) VS Code's confirmation dialog appears for our tools; clicking Yes lets the call through", step('10-confirm', async () => {
    const { result, dialog } = await editor.invokeTool(T('set_session'), { name: 'target', value: '10.0.0.5' }, { button: 'Yes' });
    assert.ok(dialog, 'no confirmation dialog appeared');
    assert.match(dialog, /set_session|Store a session variable/);
    assert.doesNotMatch(result.text, /error/i);
    // From here on: auto-approval, so the rest of the suite is not about dialogs.
    await editor.autoApproveTools();
  }));

  test('(2) set_session with a string, a number and a list; get_session returns each with its type', step('2-set-get', async () => {
    await editor.invokeTool(T('set_session'), { name: 'budget', value: 1000 });
    await editor.invokeTool(T('set_session'), { name: 'hosts', value: ['alpha', 'beta'] });
    const target = await getSession(editor, 'target');
    const budget = await getSession(editor, 'budget');
    const hosts = await getSession(editor, 'hosts');
    assert.equal(target, '10.0.0.5');
    assert.equal(typeof target, 'string');
    assert.equal(budget, 1000);
    assert.equal(typeof budget, 'number');
    assert.deepEqual(hosts, ['alpha', 'beta']);
    // VS Code sent our session key: the calls landed in the owner's own bucket.
    const vars = await editor.host.check('ownVars');
    assert.deepEqual(vars, { target: '10.0.0.5', budget: 1000, hosts: ['alpha', 'beta'] });
  }));

  test('(3) the Sessions view shows those variables', step('3-view', async () => {
    const rows = await eventually(async () => {
      const r = await viewRows(editor, 'mcc.sessions');
      return rowFor(r, 'target') && rowFor(r, 'budget') && rowFor(r, 'hosts') ? r : false;
    });
    assert.match(rowFor(rows, 'target'), /"10\.0\.0\.5"/);
    assert.match(rowFor(rows, 'budget'), /\b1000\b/);
    assert.ok(rows.some((r) => r.startsWith(OWNER)), `no bucket row for ${OWNER}: ${rows.join(' | ')}`);
    // The list renders as a list: its item count, and it expands to its elements in order.
    assert.equal(rowFor(rows, 'hosts'), 'hosts [2 items]');
    const hostsRow = await rowLocator(editor, 'mcc.sessions', 'hosts');
    assert.equal(await hostsRow.getAttribute('aria-expanded'), 'false', 'the list row is not expandable');
    await hostsRow.click();
    const expanded = await eventually(async () => {
      const r = await viewRows(editor, 'mcc.sessions');
      const at = r.indexOf('hosts [2 items]');
      return at >= 0 && r[at + 1] === '[0] "alpha"' && r[at + 2] === '[1] "beta"' ? r : false;
    });
    assert.ok(expanded);
    assert.equal(await (await rowLocator(editor, 'mcc.sessions', 'hosts')).getAttribute('aria-expanded'), 'true');
    await editor.screenshot('sessions-view');
  }));

  test('(4) execute on the exec tool returns the stored target and the owner; the terminal shows the run', step('4-exec', async () => {
    const { result } = await editor.invokeTool(T('execute'), { key: 'e2e.show_ctx', params: {} });
    assert.match(executeAnswer(result), /target=10\.0\.0\.5/);
    assert.match(executeAnswer(result), new RegExp(`user=${OWNER}`));
    assert.ok((await editor.host.check('terminals')).some((n) => /MCC/.test(n)), 'no MCC terminal');
    // The terminal panel (mcc.terminal.reveal = always), read from xterm's DOM rows.
    const text = await eventually(async () => {
      const t = (await editor.page.locator('.terminal-wrapper .xterm-rows').allInnerTexts()).join('\n');
      return /e2e-terminal-marker/.test(t) && /target=10\.0\.0\.5/.test(t) ? t : false;
    });
    assert.match(text, new RegExp(`user=${OWNER}`));
    await editor.screenshot('terminal-run');
  }));

  test('(5) a function tool writes back through context; the view shows the new value', step('5-writeback', async () => {
    const { result } = await editor.invokeTool(T('execute'), { key: 'e2e.bump', params: { by: 5 } });
    assert.match(executeAnswer(result), /"counter":\s*5/);
    assert.equal(await getSession(editor, 'counter'), 5);
    const rows = await eventually(async () => {
      const r = await viewRows(editor, 'mcc.sessions');
      return /\b5\b/.test(rowFor(r, 'counter') ?? '') ? r : false;
    });
    assert.ok(rowFor(rows, 'counter'));
  }));

  test('MCC: Show Metrics opens the last minute\'s calls per tool as a read-only table, the function tool\'s call in it', step('metrics', async () => {
    await editor.host.executeCommand('mcc.showMetrics');
    const doc = await eventually(async () => {
      const d = await editor.host.check('activeDocument');
      return d?.scheme === 'mcc-metrics' ? d : false;
    });
    assert.equal(doc.languageId, 'markdown');
    assert.match(doc.text, /^# MCC: calls in the last minute/);
    assert.match(doc.text, /^\| e2e\.bump +\| +[1-9]\d* \| +0 \| +[\d.]+ ms \|$/m, doc.text);
    assert.match(doc.text, /^\| \(all tools\) +\|/m);
    await editor.host.executeCommand('workbench.action.closeActiveEditor');
  }));

  test("(6) Edit Value in the view's context menu is what the next get_session returns", step('6-edit', async () => {
    const row = await rowLocator(editor, 'mcc.sessions', 'budget');
    await row.click({ button: 'right' });
    // VS Code draws its context menu in a shadow root; CSS locators pierce it.
    const item = editor.page.locator('.monaco-menu .action-item:not(.disabled) .action-label', { hasText: /^Edit Value$/ });
    await item.first().waitFor({ state: 'visible' });
    await editor.screenshot('sessions-context-menu');
    await clickMenuItem(editor, 'Edit Value');
    const input = editor.page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible' });
    assert.equal(await input.inputValue(), '1000');
    await input.fill('2000');
    await input.press('Enter');
    await input.waitFor({ state: 'hidden' });
    assert.equal(await eventually(async () => (await editor.host.check('ownVars')).budget === 2000 || false), true);
    const budget = await getSession(editor, 'budget');
    assert.equal(budget, 2000);
    await eventually(async () => /\b2000\b/.test(rowFor(await viewRows(editor, 'mcc.sessions'), 'budget') ?? ''));
  }));

  test('the Tools view lists the fixture catalog', step('tools-view', async () => {
    const rows = await eventually(async () => {
      const r = await viewRows(editor, 'mcc.tools');
      if (r.length && !r.some((x) => /show_ctx/.test(x))) {
        // Groups start collapsed: expand them.
        for (const item of (await editor.viewText('mcc.tools')).items) {
          if (item.expanded === 'false') await (await editor.viewRows('mcc.tools')).nth(item.index).click();
        }
      }
      return r.some((x) => /show_ctx/.test(x)) && r.some((x) => /bump/.test(x)) ? r : false;
    });
    assert.ok(rows.some((x) => /e2e/.test(x)));
    await editor.screenshot('tools-view');
  }));

  test('(7) after a window reload the variables are still there and get_session returns them', step('7-reload', async () => {
    const keyBefore = info.sessionKey;
    await editor.reload();
    const again = await editor.host.check('mccInfo');
    assert.equal(again.sessionKey, keyBefore, 'the session key changed across the reload');
    await editor.startMcpServers({ tool: T('get_session') });
    await editor.autoApproveTools();
    assert.equal(await getSession(editor, 'target'), '10.0.0.5');
    assert.equal(await getSession(editor, 'budget'), 2000);
    assert.deepEqual(await getSession(editor, 'hosts'), ['alpha', 'beta']);
    assert.equal(await getSession(editor, 'counter'), 5);
    await eventually(async () => rowFor(await viewRows(editor, 'mcc.sessions'), 'target'));
  }));

  test('(8) with a tiny TTL the periodic sweep removes the bucket from the view and from get_session', step('8-ttl', async () => {
    // 0.0003 h ≈ 1 s (the extension's minimum is one second); the extension
    // then sweeps every 250 ms (settings.ts sweepIntervalMs), not once a minute.
    // Nothing here calls sweep: the store's own timer must do it.
    await editor.host.check('markStore');
    await editor.host.updateConfiguration('mcc.session', 'ttlHours', 0.0003);
    // The settings change restarts the server with a new store.
    await eventually(() => editor.host.check('storeReplaced'));
    await editor.host.check('recordStoreChanges');
    // VS Code reconnects to the restarted server (same port, new definition version);
    // a fresh call makes a live bucket that only the periodic sweep can remove.
    await editor.startMcpServers({ tool: T('set_session') });
    await editor.autoApproveTools();
    await editor.invokeTool(T('set_session'), { name: 'fresh', value: 'soon gone' });
    const setAt = Date.now();
    // The owner's bucket is announced 'expired' after the set that made it fresh
    // (an older one may expire first: its last use was about a second ago).
    const changes = await eventually(async () => {
      const all = await editor.host.check('storeChanges');
      const set = all.findLastIndex((c) => c.reason === 'set' && c.own);
      return set >= 0 && all.slice(set + 1).some((c) => c.reason === 'expired' && c.own) ? all : false;
    }, { timeoutMs: 10_000, everyMs: 200 });
    assert.ok(changes.length > 0);
    assert.ok(Date.now() - setAt < 10_000);
    assert.deepEqual(await editor.host.check('buckets'), []);
    // The view refreshes from the store event (its 30 s clock tick is far too slow
    // for this bound) and shows its no-sessions welcome, not a stale row.
    const text = await eventually(async () => {
      const t = await viewPaneText(editor, 'mcc.sessions');
      return /No session yet/.test(t) ? t : false;
    }, { timeoutMs: 10_000 });
    assert.doesNotMatch(text, /\bfresh\b|\btarget\b/);
    assert.deepEqual(await viewRows(editor, 'mcc.sessions', { allowEmpty: true, timeoutMs: 2000 }), []);
    await editor.screenshot('sessions-view-expired');
    assert.equal(await getSession(editor, 'fresh'), null);
    assert.equal(await getSession(editor, 'target'), null);
    assert.equal(await getSession(editor, 'budget'), null);
  }));
});

describe('MCC in an untrusted workspace', { timeout: 180_000 }, () => {
  let editor;
  let workspace;
  const step = (name, fn) => withFailureScreenshot(() => editor, name, fn);

  before(async () => {
    const vsix = await freshVsix();
    workspace = workspaceCopy();
    editor = await launchEditor({
      name: 'mcc-untrusted',
      vsixOrExtensionDir: vsix,
      workspaceFolder: workspace,
      checks,
      trust: false,
      settings: { 'mcc.identity.user': OWNER },
    });
  });

  after(async () => {
    await editor?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  test('(9) no workspace tool runs, and the views say why', step('9-untrusted', async (t) => {
    assert.equal((await editor.host.workspace()).isTrusted, false);
    const info = await editor.host.check('mccInfo');
    assert.deepEqual(info.tools ?? [], [], 'the catalog of an untrusted workspace was loaded');
    // The trust gate itself answers (the key is the fixture's: without the gate
    // the runtime would say "Unknown tool" or run it), with its reason.
    const run = await editor.host.check('runtimeExecute', { key: 'e2e.show_ctx' });
    assert.equal(run.isError, true, `the tool ran: ${run.text}`);
    assert.doesNotMatch(run.text, /target=|Unknown tool/);
    assert.match(run.text, /not trusted/);
    assert.match(run.text, /Restricted Mode/);
    // Through VS Code's MCP client too, if it starts servers in Restricted Mode
    // (code-server 1.139 did not: startServer waits for trust, tools stay absent).
    const { outcome, tools: live } = await editor.host.check('startServersBriefly', { waitMs: 10_000 });
    t.diagnostic(`startServer in Restricted Mode: ${outcome}; live MCC tools: ${live.join(', ') || 'none'}`);
    if (live.includes(T('execute'))) {
      await editor.autoApproveTools();
      const { result } = await editor.invokeTool(T('execute'), { key: 'e2e.show_ctx', params: {} });
      assert.doesNotMatch(executeAnswer(result), /target=|e2e-terminal-marker/, 'the workspace tool ran through MCP');
      const { result: listed } = await editor.invokeTool(T('describe_tools'), {});
      assert.doesNotMatch(listed.text, /show_ctx|bump/, 'describe_tools lists workspace tools');
    }
    // Both MCC views say why, inside their own panes, with the trust button
    // (their viewsWelcome: a view message would hide it).
    for (const view of ['mcc.tools', 'mcc.sessions']) {
      const text = await eventually(async () => {
        const t = await viewPaneText(editor, view);
        return /This workspace is not trusted/.test(t) ? t : false;
      });
      assert.match(text, /Restricted Mode/, `${view}: ${text}`);
      assert.match(text, /Manage Workspace Trust/, `${view} shows no trust button: ${text}`);
    }
    await editor.host.executeCommand('mcc.tools.focus');
    await editor.screenshot('restricted-mode');
  }));
});
