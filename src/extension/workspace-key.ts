// The extension's own session key: stable per workspace (kept in workspace
// state), so the agent's bucket survives a window reload.
import { randomBytes } from 'node:crypto';
import { sessionKeyError } from '../core/server/bucket-key';
import type { MementoLike } from './memento-storage';

export const SESSION_KEY_STATE = 'mcc.sessionKey';

export async function workspaceSessionKey(memento: MementoLike): Promise<string> {
  const stored = memento.get<unknown>(SESSION_KEY_STATE);
  if (typeof stored === 'string' && sessionKeyError(stored) === undefined) return stored;
  const key = `vscode-${randomBytes(12).toString('hex')}`;
  await memento.update(SESSION_KEY_STATE, key);
  return key;
}
