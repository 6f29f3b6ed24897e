// In-host checks of the installed VSIX in a desktop VS Code (run by
// test/e2e/electron/run.mjs through @vscode/test-electron's extensionTestsPath).
// The same checks as test/e2e/mcc.e2e.mjs, minus what needs a page: no DOM
// reads (Sessions view, terminal text, context menu), no window reload, no
// clicking of the confirmation dialog (auto-approval instead: the setting
// plus VS Code's test-mode context key). Untrusted mode is run.mjs's second launch.
'use strict';
const assert = require('node:assert/strict');
const vscode = require('vscode');
const checks = require('../../checks/mcc-checks.cjs');

const T = (tool) => `mcp_mcc_${tool}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServers(tool, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
    if (vscode.lm.tools.some((t) => t.name === tool)) return vscode.lm.tools.map((t) => t.name);
    if (Date.now() > end) throw new Error(`${tool} not live after ${timeoutMs} ms`);
    await sleep(500);
  }
}

async function invoke(name, input) {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.filter((p) => typeof p.value === 'string').map((p) => p.value).join('');
}
const getSession = async (name) => JSON.parse(await invoke(T('get_session'), { name }));

const trusted = {
  async '(1) our tools appear in vscode.lm.tools'() {
    const names = await startServers(T('set_session'));
    for (const t of ['search', 'execute', 'describe_tools', 'get_session', 'set_session']) assert.ok(names.includes(T(t)), T(t));
  },
  async '(2) set_session string/number/list, get_session keeps the types'() {
    await invoke(T('set_session'), { name: 'target', value: '10.0.0.5' });
    await invoke(T('set_session'), { name: 'budget', value: 1000 });
    await invoke(T('set_session'), { name: 'hosts', value: ['alpha', 'beta'] });
    assert.equal(await getSession('target'), '10.0.0.5');
    assert.equal(await getSession('budget'), 1000);
    assert.deepEqual(await getSession('hosts'), ['alpha', 'beta']);
  },
  async '(4) execute of the exec tool sees the target and the owner; an MCC terminal exists'() {
    const text = await invoke(T('execute'), { key: 'e2e.show_ctx', params: {} });
    assert.match(text, /target=10\.0\.0\.5/);
    assert.match(text, /user=e2e-owner/);
    assert.ok((await checks.terminals(vscode)).some((n) => /MCC/.test(n)));
  },
  async '(5) the fn tool writes back through context'() {
    await invoke(T('execute'), { key: 'e2e.bump', params: { by: 5 } });
    assert.equal(await getSession('counter'), 5);
    assert.equal((await checks.ownVars(vscode)).counter, 5);
  },
  async '(8) a tiny TTL expires the bucket'() {
    await vscode.workspace.getConfiguration('mcc.session').update('ttlHours', 0.0003, vscode.ConfigurationTarget.Global);
    await sleep(2500);
    await checks.sweep(vscode);
    assert.deepEqual(await checks.buckets(vscode), []);
    await startServers(T('get_session'));
    assert.equal(await getSession('target'), null);
  },
};

const untrusted = {
  async '(9) no workspace tool loads or runs'() {
    assert.equal(vscode.workspace.isTrusted, false);
    assert.deepEqual((await checks.mccInfo(vscode)).tools ?? [], []);
    const run = await checks.runtimeExecute(vscode, { key: 'e2e.show_ctx' });
    assert.equal(run.isError, true);
  },
};

async function run() {
  await vscode.workspace.getConfiguration('chat.tools.global').update('autoApprove', true, vscode.ConfigurationTarget.Global);
  await vscode.commands.executeCommand('setContext', 'vscode.chat.tools.global.autoApprove.testMode', true);
  const suite = process.env.MCC_ELECTRON_SUITE === 'untrusted' ? untrusted : trusted;
  const failures = [];
  for (const [name, fn] of Object.entries(suite)) {
    try {
      await fn();
      console.log(`ok   ${name}`);
    } catch (err) {
      console.log(`FAIL ${name}: ${err?.stack ?? err}`);
      failures.push(name);
    }
  }
  if (failures.length) throw new Error(`${failures.length} check(s) failed: ${failures.join('; ')}`);
}

module.exports = { run };
