// Lists and objects of the Sessions view open in an editor tab as formatted
// JSON (the mcc-session scheme); saving the tab stores the value. Invalid
// JSON is refused with the reason, and the tab keeps the text.
import * as vscode from 'vscode';
import { SessionError } from '../core/session/errors';
import type { SessionStoreApi } from '../core/session/types';
import type { ServerHost } from './server-host';
import { parseSavedText, TextStamps, VALUE_SCHEME, variableFromQuery, variableText, variableUriParts, type VariableRef } from './value-document';

export class ValueDocuments implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private readonly stamps = new TextStamps();
  /** Documents read so far: told when a tool or the view changes their variable. */
  private readonly read = new Map<string, vscode.Uri>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly host: ServerHost) {
    this.subs.push(
      this.changed,
      vscode.workspace.registerFileSystemProvider(VALUE_SCHEME, this, { isCaseSensitive: true }),
      host.onDidChangeStore(() => this.announce()),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme !== VALUE_SCHEME) return;
        this.read.delete(d.uri.toString());
        this.stamps.forget(d.uri.toString());
      }),
    );
  }

  /** Opens the variable in a (non-preview) editor tab. */
  async show(v: VariableRef): Promise<void> {
    const p = variableUriParts(v);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: VALUE_SCHEME, path: p.path, query: p.query }));
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const text = await this.text(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: this.stamps.stamp(uri.toString(), text, Date.now()), size: Buffer.byteLength(text) };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const text = await this.text(uri);
    this.stamps.stamp(uri.toString(), text, Date.now());
    this.read.set(uri.toString(), uri);
    return Buffer.from(text, 'utf8');
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const ref = this.ref(uri);
    const store = this.store(uri);
    const saved = parseSavedText(ref.name, Buffer.from(content).toString('utf8'));
    if (!saved.ok) throw new vscode.FileSystemError(saved.error);
    try {
      await store.set(ref.user, ref.sessionKey, ref.name, saved.value);
    } catch (e) {
      // SessionError messages are written for the user (size limits).
      throw new vscode.FileSystemError(e instanceof SessionError ? e.message : `'${ref.name}' was not saved: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  private async text(uri: vscode.Uri): Promise<string> {
    const ref = this.ref(uri);
    const vars = await this.store(uri).variables(ref.user, ref.sessionKey);
    if (!Object.prototype.hasOwnProperty.call(vars, ref.name)) throw vscode.FileSystemError.FileNotFound(uri);
    return variableText(vars[ref.name]);
  }

  private ref(uri: vscode.Uri): VariableRef {
    const ref = variableFromQuery(uri.query);
    if (!ref) throw vscode.FileSystemError.FileNotFound(uri);
    return ref;
  }

  private store(uri: vscode.Uri): SessionStoreApi {
    const s = this.host.store;
    if (!s) throw vscode.FileSystemError.Unavailable(uri);
    return s;
  }

  // VS Code re-reads an open tab that has no unsaved edits; an edited one
  // asks on save, since its time is then newer (TextStamps).
  private announce(): void {
    if (this.read.size === 0) return;
    this.changed.fire([...this.read.values()].map((uri) => ({ type: vscode.FileChangeType.Changed, uri })));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
