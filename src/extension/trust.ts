// Workspace trust: in Restricted Mode nothing from the workspace is loaded
// or run. The reason text is what the runtime's gate answers and what the
// views show.
import * as vscode from 'vscode';

export const UNTRUSTED_REASON =
  'This workspace is not trusted, so MCC loads and runs none of its tools (Restricted Mode). Trust the workspace to enable them.';

export class Trust implements vscode.Disposable {
  private readonly granted = new vscode.EventEmitter<void>();
  /** Fires once, when the user trusts the workspace. */
  readonly onDidGrant = this.granted.event;
  private readonly sub: vscode.Disposable;

  constructor() {
    this.sub = vscode.workspace.onDidGrantWorkspaceTrust(() => this.granted.fire());
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The runtime's gate: a refusal reason while untrusted. */
  readonly gate = (): string | undefined => (vscode.workspace.isTrusted ? undefined : UNTRUSTED_REASON);

  dispose(): void {
    this.sub.dispose();
    this.granted.dispose();
  }
}
