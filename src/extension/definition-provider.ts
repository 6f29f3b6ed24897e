// Registers the embedded server with VS Code's MCP client. No UI here: the
// definition waits for the server and carries the token and session key.
import * as vscode from 'vscode';
import { definitionData } from './connection';
import type { ServerHost } from './server-host';

export const PROVIDER_ID = 'mcc.servers';

export class DefinitionProvider implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>, vscode.Disposable {
  private version = 1;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;

  constructor(
    private readonly host: ServerHost,
    private readonly sessionKey: string,
    private readonly ready: Promise<void>,
  ) {}

  async provideMcpServerDefinitions(): Promise<vscode.McpHttpServerDefinition[]> {
    // A failed start leaves no server to offer; the status bar says why.
    await this.ready.catch(() => undefined);
    const url = this.host.url;
    if (!url) return [];
    const d = definitionData(url, this.host.token, this.sessionKey, this.version);
    return [new vscode.McpHttpServerDefinition(d.label, vscode.Uri.parse(d.url), d.headers, d.version)];
  }

  /** The tools or the address changed: VS Code re-reads the definition and refreshes the tools. */
  bump(): void {
    this.version++;
    this.changed.fire();
  }

  register(): vscode.Disposable {
    return vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, this);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
