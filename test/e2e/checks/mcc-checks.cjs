// In-host checks for test/e2e/mcc.e2e.mjs: they read the real extension's
// exported API (src/extension/api.ts). Each returns something JSON-able.
'use strict';
// The id users install: publisher.name from the manifest.
const { publisher, name } = require('../../../package.json');
const ID = `${publisher}.${name}`;

async function api(vscode) {
  const ext = vscode.extensions.getExtension(ID);
  if (!ext) throw new Error(`${ID} is not installed`);
  if (!ext.isActive) await ext.activate();
  await ext.exports.ready;
  return ext.exports;
}

module.exports = {
  /** Whether the extension is active, without activating it (as every other check does). */
  async isActive(vscode) {
    return vscode.extensions.getExtension(ID)?.isActive ?? false;
  },
  /** The active editor's document: where it lives, its text, whether it has unsaved edits. */
  async activeDocument(vscode) {
    const d = vscode.window.activeTextEditor?.document;
    return d ? { scheme: d.uri.scheme, path: d.uri.path, languageId: d.languageId, text: d.getText(), isDirty: d.isDirty } : null;
  },
  /** Replaces the active editor's whole text, as typing would (unsaved). */
  async setActiveText(vscode, { text }) {
    const e = vscode.window.activeTextEditor;
    if (!e) throw new Error('no active editor');
    const all = new vscode.Range(e.document.positionAt(0), e.document.positionAt(e.document.getText().length));
    return e.edit((b) => b.replace(all, text));
  },
  /** Appends text to a workspace file in its editor (opened and shown), unsaved. */
  async appendInEditor(vscode, { file, text }) {
    const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders[0].uri, file);
    const doc = await vscode.workspace.openTextDocument(uri);
    const e = await vscode.window.showTextDocument(doc);
    return e.edit((b) => b.insert(doc.positionAt(doc.getText().length), text));
  },
  async mccInfo(vscode) {
    const a = await api(vscode);
    const ext = vscode.extensions.getExtension(ID);
    return {
      extensionPath: ext.extensionPath,
      sessionKey: a.sessionKey,
      owner: a.owner,
      serverUrl: a.serverUrl(),
      tools: a.runtime ? [...a.runtime.catalog.current.tools.keys()] : null,
      startup: a.startup,
    };
  },
  /** The owner's own bucket, straight from the store. */
  async ownVars(vscode) {
    const a = await api(vscode);
    return a.store.variables(a.owner.user, a.sessionKey);
  },
  async buckets(vscode) {
    const a = await api(vscode);
    return (await a.store.list()).map((b) => ({ user: b.user, sessionKey: b.sessionKey, vars: b.vars, expiresAt: b.expiresAt, lastUsed: b.lastUsed }));
  },
  async sweep(vscode) {
    return (await api(vscode)).sweep();
  },
  /** Remembers the live store, so a later check can tell it was replaced (a restart). */
  async markStore(vscode, _args, ctx) {
    ctx.state.markedStore = (await api(vscode)).store;
    return true;
  },
  async storeReplaced(vscode, _args, ctx) {
    const ext = vscode.extensions.getExtension(ID);
    const s = ext?.exports?.store;
    return Boolean(s) && s !== ctx.state.markedStore;
  },
  /** Records the live store's change events from now on (reason, and whether the owner's own bucket changed). */
  async recordStoreChanges(vscode, _args, ctx) {
    const a = await api(vscode);
    ctx.state.storeSub?.dispose();
    const changes = (ctx.state.storeChanges = []);
    const store = a.store;
    // A bucket's owner is learnt from the live buckets and from each change that names it
    // (an 'expired' change names only the bucket id).
    const owners = new Map((await store.list()).map((b) => [b.id, `${b.user}\n${b.sessionKey}`]));
    const own = `${a.owner.user}\n${a.sessionKey}`;
    ctx.state.storeSub = store.onDidChange((c) => {
      if (c.user !== undefined && c.sessionKey !== undefined) owners.set(c.bucketId, `${c.user}\n${c.sessionKey}`);
      changes.push({ reason: c.reason, bucketId: c.bucketId, own: owners.get(c.bucketId) === own, at: Date.now() });
    });
    return true;
  },
  async storeChanges(_vscode, _args, ctx) {
    return ctx.state.storeChanges ?? [];
  },
  /** Runs a catalog tool as the owner through the live runtime (not through MCP). */
  async runtimeExecute(vscode, { key, params }) {
    const a = await api(vscode);
    return a.runtime.calls.execute(a.owner, a.sessionKey, key, params ?? {});
  },
  /** Asks VS Code to start the MCP servers, waiting at most waitMs; returns the live mcp_mcc_ tools. */
  async startServersBriefly(vscode, { waitMs = 10000 }) {
    const started = Promise.resolve(vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true })).then(() => 'returned', (e) => `failed: ${e?.message ?? e}`);
    const outcome = await Promise.race([started, new Promise((r) => setTimeout(() => r('still waiting'), waitMs))]);
    return { outcome, tools: vscode.lm.tools.filter((t) => t.name.startsWith('mcp_mcc_')).map((t) => t.name) };
  },
  async terminals(vscode) {
    return vscode.window.terminals.map((t) => t.name);
  },
};
