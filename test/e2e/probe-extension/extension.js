// Test-only stand-in for the real extension: registers an MCP server
// definition (a server the e2e test runs), a tree view and a command, and
// exports a small API like the real one is meant to.
'use strict';
const vscode = require('vscode');

function activate(context) {
  const url = process.env.MCC_PROBE_MCP_URL;
  const token = process.env.MCC_PROBE_MCP_TOKEN || '';
  const api = { mcpUrl: url, provideCalls: 0, helloCount: 0 };

  const changed = new vscode.EventEmitter();
  context.subscriptions.push(changed);
  context.subscriptions.push(vscode.lm.registerMcpServerDefinitionProvider('mccProbe.servers', {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      api.provideCalls++;
      if (!url) return [];
      return [new vscode.McpHttpServerDefinition('Probe', vscode.Uri.parse(url), { Authorization: `Bearer ${token}` }, '1')];
    },
  }));

  const items = ['alpha = "one"', 'beta = 2', `mcp url: ${url ? 'set' : 'missing'}`];
  const tree = {
    getChildren: () => items,
    getTreeItem: (label) => new vscode.TreeItem(label),
  };
  context.subscriptions.push(vscode.window.registerTreeDataProvider('mccProbe.items', tree));

  context.subscriptions.push(vscode.commands.registerCommand('mccProbe.hello', () => {
    api.helloCount++;
    vscode.window.showInformationMessage(`Hello from the probe (${api.helloCount})`);
    return api.helloCount;
  }));

  // Survives reloads, to show workspaceState through the exported API.
  api.activations = (context.workspaceState.get('activations') || 0) + 1;
  void context.workspaceState.update('activations', api.activations);
  api.workspaceState = () => Object.fromEntries(context.workspaceState.keys().map((k) => [k, context.workspaceState.get(k)]));
  return api;
}

function deactivate() {}

module.exports = { activate, deactivate };
