// What the Sessions view shows, as plain data: which nodes a store yields,
// with labels, descriptions, tooltips and context values. The tree provider
// in sessions-tree.ts only maps these onto vscode.TreeItem.
import { TASK_KEY_PREFIX } from '../core/call/task-records';
import type { IdentityKeys } from '../core/identity';
import type { BucketView } from '../core/session/types';
import { describeValue, formatAgo, formatExpiresIn, isContainer, prettyJson, shortKey, valueKind } from './value-format';

export type Collapsible = 'none' | 'collapsed' | 'expanded';

interface NodeBase {
  /** Stable across refreshes, so expansion state survives. */
  id: string;
  label: string;
  description: string;
  tooltip: string;
  contextValue: string;
  collapsible: Collapsible;
  /** A codicon id. */
  icon: string;
}

export interface BucketNode extends NodeBase {
  kind: 'bucket';
  bucket: BucketView;
  own: boolean;
  identity?: IdentityKeys;
}

export interface EntryNode extends NodeBase {
  kind: 'identity' | 'variable' | 'element';
  bucketId: string;
  user: string;
  sessionKey: string;
  /** The variable (or identity key) at the root of this entry. */
  name: string;
  /** Path below the variable, for elements of lists and objects. */
  path: (string | number)[];
  value: unknown;
}

export type SessionNode = BucketNode | EntryNode;

export interface SessionsInput {
  buckets: BucketView[];
  /** The extension's own session (owner + workspace key). */
  own: { user: string; sessionKey: string };
  /** Identity keys as a tool of that user would see them; undefined when the user is unknown here. */
  identityFor(user: string): IdentityKeys | undefined;
  now: number;
}

export const CONTEXT = {
  bucket: 'mcc.bucket',
  ownBucket: 'mcc.bucket.own',
  identity: 'mcc.identity',
  variable: 'mcc.variable',
  element: 'mcc.element',
} as const;

/** One node per live bucket that holds variables: the own session first, then the most recently used. */
export function sessionRoots(input: SessionsInput): BucketNode[] {
  const isOwn = (b: BucketView): boolean => b.user === input.own.user && b.sessionKey === input.own.sessionKey;
  const sorted = [...input.buckets]
    // Task records live in buckets of their own; they are not sessions.
    .filter((b) => b.expiresAt > input.now && !b.sessionKey.startsWith(TASK_KEY_PREFIX))
    .sort((a, b) => Number(isOwn(b)) - Number(isOwn(a)) || b.lastUsed - a.lastUsed);
  return sorted.map((b) => bucketNode(b, isOwn(b), input));
}

function bucketNode(b: BucketView, own: boolean, input: SessionsInput): BucketNode {
  const client = b.clientName ?? (own ? 'this editor' : 'unknown client');
  const count = Object.keys(b.vars).length;
  const identity = input.identityFor(b.user);
  const tooltip = [
    `${b.user} — ${own ? "this workspace's agent session" : 'session'}`,
    `Session key: ${b.sessionKey}`,
    `Client: ${client}`,
    `Variables: ${count}`,
    `Created: ${new Date(b.createdAt).toLocaleString()}`,
    `Last active: ${formatAgo(b.lastUsed, input.now)}`,
    `Expires: ${formatExpiresIn(b.expiresAt, input.now)}`,
  ].join('\n');
  return {
    kind: 'bucket',
    id: `b:${b.id}`,
    label: b.user,
    description: [shortKey(b.sessionKey), client, `active ${formatAgo(b.lastUsed, input.now)}`, `expires ${formatExpiresIn(b.expiresAt, input.now)}`].join(' · '),
    tooltip,
    contextValue: own ? CONTEXT.ownBucket : CONTEXT.bucket,
    collapsible: own ? 'expanded' : 'collapsed',
    icon: own ? 'account' : 'person',
    bucket: b,
    own,
    ...(identity ? { identity } : {}),
  };
}

/** Identity keys (read-only) first, then the variables by name; containers expand to their elements. */
export function sessionChildren(node: SessionNode): EntryNode[] {
  if (node.kind === 'bucket') {
    const b = node.bucket;
    const base = { bucketId: b.id, user: b.user, sessionKey: b.sessionKey };
    const identity: Record<string, unknown> = node.identity ? { ...node.identity } : { user: b.user };
    const ids = Object.entries(identity).map(([name, value]) => entryNode({ ...base, kind: 'identity', name, path: [], value }, node.id));
    const vars = Object.keys(b.vars)
      .sort()
      .map((name) => entryNode({ ...base, kind: 'variable', name, path: [], value: b.vars[name] }, node.id));
    return [...ids, ...vars];
  }
  const v = node.value;
  if (!isContainer(v)) return [];
  const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  return entries.map(([k, value]) =>
    entryNode(
      { kind: node.kind === 'identity' ? 'identity' : 'element', bucketId: node.bucketId, user: node.user, sessionKey: node.sessionKey, name: node.name, path: [...node.path, k], value },
      node.id,
    ),
  );
}

type EntryData = Pick<EntryNode, 'kind' | 'bucketId' | 'user' | 'sessionKey' | 'name' | 'path' | 'value'>;

function entryNode(d: EntryData, parentId: string): EntryNode {
  const last = d.path.length === 0 ? d.name : d.path[d.path.length - 1];
  const label = typeof last === 'number' ? `[${last}]` : last;
  const readOnly = d.kind === 'identity';
  const json = prettyJson(d.value);
  const where = d.path.length === 0 ? d.name : `${d.name}${d.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}`;
  return {
    ...d,
    id: `${parentId}/${readOnly ? 'i' : 'v'}/${JSON.stringify(d.path.length === 0 ? d.name : d.path)}`,
    label,
    description: readOnly && d.path.length === 0 ? `${describeValue(d.value)} (read-only)` : describeValue(d.value),
    tooltip: `${where} (${valueKind(d.value)}${readOnly ? ', identity, read-only' : ''})\n${json}`,
    contextValue: readOnly ? CONTEXT.identity : d.path.length === 0 ? CONTEXT.variable : CONTEXT.element,
    collapsible: isContainer(d.value) ? 'collapsed' : 'none',
    icon: readOnly ? 'lock' : iconFor(d.value),
  };
}

function iconFor(v: unknown): string {
  switch (valueKind(v)) {
    case 'string':
      return 'symbol-string';
    case 'number':
      return 'symbol-number';
    case 'boolean':
      return 'symbol-boolean';
    case 'list':
      return 'symbol-array';
    case 'object':
      return 'symbol-object';
    default:
      return 'symbol-null';
  }
}

/** "Copy Session as JSON": the variables, and the identity when known. */
export function sessionJson(node: BucketNode): string {
  const b = node.bucket;
  return prettyJson({ user: b.user, sessionKey: b.sessionKey, clientName: b.clientName, ...(node.identity ? { identity: node.identity } : {}), variables: b.vars });
}
