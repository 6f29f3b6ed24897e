// The Sessions view: maps sessions-model nodes onto TreeItems and refreshes
// on every store change (tools, write-back, the UI, expiry).
import * as vscode from 'vscode';
import { sessionChildren, sessionRoots, type Collapsible, type SessionNode, type SessionsInput } from './sessions-model';
import type { ServerHost } from './server-host';
import { UNTRUSTED_REASON } from './trust';
import type { BucketView } from '../core/session/types';

export const SESSIONS_VIEW = 'mcc.sessions';

export class SessionsTree implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  private pending: NodeJS.Timeout | undefined;
  readonly view: vscode.TreeView<SessionNode>;

  constructor(
    private readonly host: ServerHost,
    private readonly sessionKey: string,
    private readonly trusted: () => boolean,
    /** A catalog reload: the `tools` identity key of every bucket may change. */
    catalogChanged: vscode.Event<unknown>,
  ) {
    this.view = vscode.window.createTreeView(SESSIONS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    const soon = (): void => this.refreshSoon();
    this.subs.push(this.view, this.changed, host.onDidChangeStore(soon), host.onDidChangeState(soon), catalogChanged(soon));
    // Relative times ("active 5m ago", "expires in 3h") go stale without a change.
    const tick = setInterval(() => this.refresh(), 30_000);
    this.subs.push({ dispose: () => clearInterval(tick) });
    this.updateMessage();
  }

  refresh(): void {
    this.updateMessage();
    this.changed.fire(undefined);
  }

  // A burst of changes (a write-back touches and sets) becomes one refresh.
  private refreshSoon(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, 50);
  }

  /** Live buckets, read from the store (none while it is stopped or unreadable). */
  private async buckets(): Promise<BucketView[]> {
    try {
      return (await this.host.store?.list()) ?? [];
    } catch {
      return [];
    }
  }

  /** Re-reads the store for the message and the session-count contexts. */
  updateMessage(): void {
    void this.updateCounts();
  }

  private async updateCounts(): Promise<void> {
    const count = (await this.buckets()).length;
    void vscode.commands.executeCommand('setContext', 'mcc.sessionCount', count);
    void vscode.commands.executeCommand('setContext', 'mcc.hasSessions', count > 0);
    this.showMessage(count > 0);
  }

  /**
   * An empty view shows its viewsWelcome (package.json, by `when` on
   * isWorkspaceTrusted), which a message would hide. Only when there are
   * rows, so no welcome can show, does Restricted Mode say why as a message.
   */
  private showMessage(hasRows: boolean): void {
    this.view.message = this.trusted() || !hasRows ? undefined : `${UNTRUSTED_REASON} Session variables still work.`;
  }

  input(buckets: BucketView[]): SessionsInput {
    const runtime = this.host.runtime;
    return {
      buckets,
      own: { user: this.host.owner.user, sessionKey: this.sessionKey },
      identityFor: (user) => {
        const p = this.host.principalFor(user);
        return p && runtime ? runtime.catalog.identity(p) : undefined;
      },
      now: Date.now(),
    };
  }

  async getChildren(node?: SessionNode): Promise<SessionNode[]> {
    return node ? sessionChildren(node) : sessionRoots(this.input(await this.buckets()));
  }

  getTreeItem(n: SessionNode): vscode.TreeItem {
    const item = new vscode.TreeItem(n.label, collapsibleState(n.collapsible));
    item.id = n.id;
    item.description = n.description;
    item.contextValue = n.contextValue;
    item.iconPath = new vscode.ThemeIcon(n.icon);
    const md = new vscode.MarkdownString();
    const [head, ...rest] = n.tooltip.split('\n');
    md.appendText(head ?? '');
    if (n.kind === 'bucket') md.appendText(`\n${rest.join('\n')}`);
    else md.appendCodeblock(rest.join('\n'), 'json');
    item.tooltip = md;
    return item;
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    for (const s of this.subs) s.dispose();
  }
}

export function collapsibleState(c: Collapsible): vscode.TreeItemCollapsibleState {
  if (c === 'expanded') return vscode.TreeItemCollapsibleState.Expanded;
  if (c === 'collapsed') return vscode.TreeItemCollapsibleState.Collapsed;
  return vscode.TreeItemCollapsibleState.None;
}
