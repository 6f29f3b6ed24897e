// The Tools view: group -> tool, the signature and description as tooltip; clicking a tool
// opens its definition.
import * as vscode from 'vscode';
import type { CatalogController } from './catalog';
import { collapsibleState } from './sessions-tree';
import { toolGroups, toolNodes, type ToolsNode } from './tools-model';
import { UNTRUSTED_REASON } from './trust';

export const TOOLS_VIEW = 'mcc.tools';

export class ToolsTree implements vscode.TreeDataProvider<ToolsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ToolsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<ToolsNode>;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly catalog: CatalogController,
    private readonly trusted: () => boolean,
    /** mcc.sandbox: what tools that say nothing get. */
    private readonly sandbox: () => 'off' | 'default' = () => 'off',
    /** The workspace folders, which the default sandbox profile shows read-only. */
    private readonly roots: () => readonly string[] = () => [],
  ) {
    this.view = vscode.window.createTreeView(TOOLS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subs.push(
      this.view,
      this.changed,
      catalog.onDidChange(() => this.refresh()),
      // Which tools are sandboxed follows mcc.sandbox too.
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('mcc.sandbox') && this.refresh()),
    );
    this.refresh();
  }

  refresh(): void {
    const c = this.catalog.catalog;
    const errors = c.diagnostics.filter((d) => d.severity === 'error').length;
    // An empty view shows its viewsWelcome (untrusted, no catalog, catalog
    // errors: by `when` on these keys), which a message would hide. A message
    // only for what no welcome can say: errors next to tools that did load.
    void vscode.commands.executeCommand('setContext', 'mcc.catalogErrors', errors > 0);
    void vscode.commands.executeCommand('setContext', 'mcc.toolCount', c.tools.size);
    const hasRows = c.tools.size > 0;
    if (hasRows && !this.trusted()) this.view.message = UNTRUSTED_REASON;
    else if (hasRows && errors > 0) this.view.message = `The catalog has ${errors} error(s): see the Problems panel.`;
    else this.view.message = undefined;
    this.changed.fire(undefined);
  }

  getChildren(node?: ToolsNode): ToolsNode[] {
    if (!node) return toolGroups(this.catalog.catalog.tools.values());
    return node.kind === 'group' ? toolNodes(node, this.sandbox(), this.roots()) : [];
  }

  getTreeItem(n: ToolsNode): vscode.TreeItem {
    if (n.kind === 'group') {
      const item = new vscode.TreeItem(n.label, collapsibleState(n.collapsible));
      item.id = n.id;
      item.description = n.description;
      item.iconPath = new vscode.ThemeIcon('folder-library');
      item.contextValue = 'mcc.group';
      return item;
    }
    const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    item.id = n.id;
    item.description = n.description;
    // Catalog text: rendered, but untrusted (no command links) and without HTML.
    item.tooltip = new vscode.MarkdownString(n.tooltip);
    item.contextValue = n.contextValue;
    item.iconPath = new vscode.ThemeIcon(n.icon);
    item.command = { command: 'mcc.tools.openDefinition', title: 'Open Definition', arguments: [n] };
    return item;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
