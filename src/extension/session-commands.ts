// Sessions view actions. Names go through the core's validateVariableName
// and values through the store itself, so the UI enforces exactly what
// set_session does (slug rule, reserved keys, size limits).
import * as vscode from 'vscode';
import { validateVariableName } from '../core/session/variable-names';
import { SessionError } from '../core/session/errors';
import type { SessionStoreApi } from '../core/session/types';
import type { BucketNode, EntryNode, SessionNode } from './sessions-model';
import { sessionJson } from './sessions-model';
import type { ServerHost } from './server-host';
import type { SessionsTree } from './sessions-tree';
import type { ValueDocuments } from './value-documents';
import { parseValueInput, prettyJson, shortKey, VALUE_PROMPT, valueToInput } from './value-format';

interface Target {
  user: string;
  sessionKey: string;
}

export function registerSessionCommands(host: ServerHost, tree: SessionsTree, sessionKey: string, documents: ValueDocuments): vscode.Disposable[] {
  const own = (): Target => ({ user: host.owner.user, sessionKey });
  const store = (): SessionStoreApi | undefined => {
    const s = host.store;
    if (!s) void vscode.window.showErrorMessage('MCC: the server is not running, so its sessions cannot be changed.');
    return s;
  };
  const guarded = async (what: string, op: () => Promise<unknown>): Promise<void> => {
    try {
      await op();
    } catch (e) {
      // SessionError messages are written for the user (bad name, size limits).
      const msg = e instanceof SessionError ? e.message : `${what} failed: ${e instanceof Error ? e.message : String(e)}`;
      void vscode.window.showErrorMessage(`MCC: ${msg}`);
    }
  };

  return [
    vscode.commands.registerCommand('mcc.sessions.refresh', () => tree.refresh()),

    vscode.commands.registerCommand('mcc.sessions.addVariable', async (node?: SessionNode) => {
      const s = store();
      if (!s) return;
      const target: Target = node ? { user: bucketUser(node), sessionKey: bucketKey(node) } : own();
      // Only for the "exists" hint: an unreadable store still lets the set say what is wrong.
      const existing = await s.variables(target.user, target.sessionKey).catch(() => ({}));
      const name = await vscode.window.showInputBox({
        title: `Add Variable to ${target.user}'s session`,
        prompt: 'Variable name: lowercase letters, digits and underscores, not starting with a digit',
        placeHolder: 'target',
        ignoreFocusOut: true,
        validateInput: (v) => {
          const bad = validateVariableName(v);
          if (bad) return bad;
          return Object.prototype.hasOwnProperty.call(existing, v)
            ? { message: `'${v}' exists; its value will be replaced.`, severity: vscode.InputBoxValidationSeverity.Warning }
            : undefined;
        },
      });
      if (name === undefined) return;
      const value = await askValue(`Value of '${name}'`, '');
      if (value === undefined) return;
      await guarded('Add Variable', () => s.set(target.user, target.sessionKey, name, value.value));
    }),

    vscode.commands.registerCommand('mcc.sessions.editValue', async (node?: EntryNode) => {
      const s = store();
      if (!s || !node || node.kind !== 'variable') return;
      // Lists and objects get an editor tab of formatted JSON, saved back on save.
      if (typeof node.value === 'object' && node.value !== null) {
        return guarded('Edit Value', () => documents.show({ user: node.user, sessionKey: node.sessionKey, name: node.name }));
      }
      const value = await askValue(`Edit '${node.name}' (${node.user})`, valueToInput(node.value));
      if (value === undefined) return;
      await guarded('Edit Value', () => s.set(node.user, node.sessionKey, node.name, value.value));
    }),

    vscode.commands.registerCommand('mcc.sessions.deleteVariable', async (node?: EntryNode) => {
      const s = store();
      if (!s || !node || node.kind !== 'variable') return;
      await guarded('Delete Variable', () => s.delete(node.user, node.sessionKey, node.name));
    }),

    vscode.commands.registerCommand('mcc.sessions.clear', async (node?: BucketNode) => {
      const s = store();
      if (!s) return;
      const target: Target = node ? { user: node.bucket.user, sessionKey: node.bucket.sessionKey } : own();
      const answer = await vscode.window.showWarningMessage(
        `Clear ${target.user}'s session ${shortKey(target.sessionKey)}? All of its variables are removed.`,
        { modal: true },
        'Clear Session',
      );
      if (answer !== 'Clear Session') return;
      await guarded('Clear Session', () => s.clear(target.user, target.sessionKey));
    }),

    vscode.commands.registerCommand('mcc.sessions.copyValue', async (node?: EntryNode) => {
      if (!node || !('value' in node)) return;
      // A string is copied as its text; everything else as JSON.
      const text = typeof node.value === 'string' ? node.value : prettyJson(node.value);
      await vscode.env.clipboard.writeText(text);
      void vscode.window.setStatusBarMessage(`MCC: copied ${node.label}`, 2000);
    }),

    vscode.commands.registerCommand('mcc.sessions.copyJson', async (node?: BucketNode) => {
      if (!node || node.kind !== 'bucket') return;
      await vscode.env.clipboard.writeText(sessionJson(node));
      void vscode.window.setStatusBarMessage('MCC: copied the session as JSON', 2000);
    }),
  ];
}

async function askValue(title: string, initial: string): Promise<{ value: unknown } | undefined> {
  const text = await vscode.window.showInputBox({
    title,
    prompt: VALUE_PROMPT,
    value: initial,
    ignoreFocusOut: true,
    // Notes are info or warnings, never errors: Enter always stores (text, when it is not JSON).
    validateInput: (v) => {
      const note = parseValueInput(v).note;
      if (!note) return undefined;
      return { message: note.message, severity: note.severity === 'warning' ? vscode.InputBoxValidationSeverity.Warning : vscode.InputBoxValidationSeverity.Info };
    },
  });
  if (text === undefined) return undefined;
  return { value: parseValueInput(text).value };
}

function bucketUser(n: SessionNode): string {
  return n.kind === 'bucket' ? n.bucket.user : n.user;
}

function bucketKey(n: SessionNode): string {
  return n.kind === 'bucket' ? n.bucket.sessionKey : n.sessionKey;
}
