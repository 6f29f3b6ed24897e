// Tools view actions: open a tool's YAML at its line, run it as the owner
// in the extension's own session, and write a starter catalog.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolDef } from '../core/catalog/types';
import type { ToolCallResult } from '../core/tool-result';
import type { CatalogController } from './catalog';
import { callerParams, type ToolNode } from './tools-model';
import { paramInitialValue, paramPlaceholder, paramPrompt, parseParamInput } from './param-input';
import type { ServerHost } from './server-host';
import { resultSummary } from './run-summary';
import { STARTER_CATALOG } from './starter-catalog';

export function registerToolCommands(host: ServerHost, catalog: CatalogController, sessionKey: string): vscode.Disposable[] {
  // A tree node, a tool key (for scripts and tests) or nothing (a quick pick).
  const pickTool = async (node?: ToolNode | string): Promise<ToolDef | undefined> => {
    if (typeof node === 'string') return catalog.catalog.tools.get(node);
    if (node?.tool) return node.tool;
    const tools = [...catalog.catalog.tools.values()].sort((a, b) => a.key.localeCompare(b.key));
    if (tools.length === 0) {
      void vscode.window.showInformationMessage('MCC: no tools are loaded.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      tools.map((t) => ({ label: t.key, description: t.kind, detail: t.description.split('\n')[0], tool: t })),
      { title: 'MCC: Run Tool', placeHolder: 'Pick a tool', matchOnDescription: true, matchOnDetail: true },
    );
    return picked?.tool;
  };

  return [
    vscode.commands.registerCommand('mcc.tools.openDefinition', async (node?: ToolNode | string) => {
      const tool = await pickTool(node);
      if (!tool) return;
      const line = Math.max(0, tool.source.line - 1);
      const pos = new vscode.Position(line, Math.max(0, (tool.source.column ?? 1) - 1));
      await vscode.window.showTextDocument(vscode.Uri.file(tool.source.file), { selection: new vscode.Range(pos, pos), preview: true });
    }),

    // Given params (scripts, tests) skip the input boxes. Resolves with the result, not waiting for its toast.
    vscode.commands.registerCommand('mcc.tools.run', async (node?: ToolNode | string, given?: Record<string, unknown>) => {
      const tool = await pickTool(node);
      const runtime = host.runtime;
      if (!tool) return undefined;
      if (!runtime) return void vscode.window.showErrorMessage('MCC: the server is not running.');
      const params = given ?? (await askParams(tool));
      if (!params) return;
      const abort = new AbortController();
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `MCC: running ${tool.key}`, cancellable: true },
        (_p, token) => {
          token.onCancellationRequested(() => abort.abort(new Error('cancelled by the user')));
          return runtime.calls.execute(host.owner, sessionKey, tool.key, params, { signal: abort.signal });
        },
      );
      void showResult(tool, result);
      return result;
    }),

    vscode.commands.registerCommand('mcc.createCatalog', async () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder || folder.uri.scheme !== 'file') {
        return void vscode.window.showErrorMessage('MCC: open a folder first; tools.yaml is created at its root.');
      }
      const file = join(folder.uri.fsPath, 'tools.yaml');
      if (!existsSync(file)) await vscode.workspace.fs.writeFile(vscode.Uri.file(file), Buffer.from(STARTER_CATALOG, 'utf8'));
      await vscode.window.showTextDocument(vscode.Uri.file(file));
      await catalog.reload();
    }),

    vscode.commands.registerCommand('mcc.reloadCatalog', () => catalog.reload()),
  ];
}

/** One input box per caller param; undefined when the user cancels. */
async function askParams(tool: ToolDef): Promise<Record<string, unknown> | undefined> {
  const out: Record<string, unknown> = {};
  const specs = callerParams(tool);
  for (const [i, spec] of specs.entries()) {
    const text = await vscode.window.showInputBox({
      title: `${tool.key} (${i + 1}/${specs.length})`,
      prompt: paramPrompt(spec),
      value: paramInitialValue(spec),
      placeHolder: paramPlaceholder(spec),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const r = parseParamInput(spec, v);
        return r.ok ? undefined : r.error;
      },
    });
    if (text === undefined) return undefined;
    const r = parseParamInput(spec, text);
    if (!r.ok) return undefined;
    if (!r.omit) out[spec.name] = r.value;
  }
  return out;
}

async function showResult(tool: ToolDef, result: ToolCallResult): Promise<void> {
  const open = 'Open Result';
  const show = result.isError ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
  const answer = await show(`MCC ${tool.key}${result.isError ? ' failed' : ''}: ${resultSummary(result)}`, open);
  if (answer === open) {
    const doc = await vscode.workspace.openTextDocument({ content: result.text, language: tool.kind === 'fn' && !result.isError ? 'json' : 'plaintext' });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}
