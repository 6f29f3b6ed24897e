// A session variable as a JSON document in an editor tab (for lists and
// objects, which a one-line box edits badly): where it lives (a URI of the
// mcc-session scheme), its text, and what a save of edited text means.
// Pure: value-documents.ts serves these through a FileSystemProvider.
import { jsonError, prettyJson } from './value-format';

export const VALUE_SCHEME = 'mcc-session';

export interface VariableRef {
  user: string;
  sessionKey: string;
  name: string;
}

/** The URI parts: the tab reads `<name>.json`; the exact bucket is in the query. */
export function variableUriParts(v: VariableRef): { path: string; query: string } {
  return {
    path: `/${encodeURIComponent(v.user)}/${v.name}.json`,
    query: new URLSearchParams({ user: v.user, key: v.sessionKey, name: v.name }).toString(),
  };
}

/** The variable a URI names, or undefined for one this scheme never made. */
export function variableFromQuery(query: string): VariableRef | undefined {
  const q = new URLSearchParams(query);
  const user = q.get('user');
  const sessionKey = q.get('key');
  const name = q.get('name');
  return user && sessionKey && name ? { user, sessionKey, name } : undefined;
}

/** The document's text: the value as formatted JSON, with a final newline. */
export function variableText(value: unknown): string {
  return `${prettyJson(value)}\n`;
}

export type SavedText = { ok: true; value: unknown } | { ok: false; error: string };

/** What a save stores, or why it stores nothing (the editor keeps the text). */
export function parseSavedText(name: string, text: string): SavedText {
  if (text.trim() === '') return { ok: false, error: `'${name}' was not saved: the document is empty. Write a JSON value (null to store null).` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: `'${name}' was not saved: the JSON is invalid (${jsonError(e, text)}). Fix it and save again.` };
  }
}

/**
 * Modification times for the documents' texts. VS Code compares them on
 * save: when a tool changed the variable after the tab was opened, the
 * time is newer and VS Code asks before overwriting, instead of losing
 * either change. Unchanged text keeps its time (no false conflict).
 */
export class TextStamps {
  private readonly known = new Map<string, { text: string; mtime: number }>();

  stamp(key: string, text: string, now: number): number {
    const k = this.known.get(key);
    if (k && k.text === text) return k.mtime;
    const mtime = k ? Math.max(now, k.mtime + 1) : now;
    this.known.set(key, { text, mtime });
    return mtime;
  }

  forget(key: string): void {
    this.known.delete(key);
  }
}
