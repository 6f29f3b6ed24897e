// The fast way to read a catalog file: js-yaml (about ten times faster than
// the `yaml` package's document model on a large catalog) with a tree of the
// line where each node starts, built from its parse events, so diagnostics
// still name their line. Anything it does not take (a parse error, a
// document with many aliases) goes the careful way (yaml-file.ts), which has
// the precise error messages; both read the YAML 1.2 core schema with merge
// keys, so a file that both accept gives the same data.
import type { Schema, State, Type } from 'js-yaml';
import { jsYamlLib } from '../lazy-libs';

export type YamlPath = ReadonlyArray<string | number>;

let schema: Schema | undefined;
function coreWithMerge(): Schema {
  if (schema) return schema;
  const lib = jsYamlLib();
  // js-yaml exports its merge-key type at runtime; its type declarations omit it.
  const merge = (lib as unknown as { types: { merge: Type } }).types.merge;
  return (schema = lib.CORE_SCHEMA.extend({ implicit: [merge] }));
}
// A document built on many aliases (a "billion laughs") is left to the careful
// path, which caps how far aliases may expand.
const MAX_ALIASES = 50;
const ALIAS = /(?:^|[\s,[{:-])\*[^\s,\]}]/g;

/** Where a node starts, and its children by key (mapping) or index (sequence). */
export interface PosNode {
  /** Undefined for an empty value (`key:` alone), which, as in the careful path, has no line of its own. */
  line: number | undefined;
  /** Where its content starts (internal, while parsing; not kept by the parse cache). */
  start?: number;
  kind?: string;
  key?: string;
  /** Children in document order: for a mapping, key, value, key, value… */
  children: PosNode[];
  /** Its path from the root, on the nodes of a shallow tree. */
  path?: YamlPath;
  /** True when it has children deeper than the tree was built (see SHALLOW_DEPTH). */
  truncated?: boolean;
}

export interface FastYaml {
  data: unknown;
  /** The line (1-based) of the deepest node on the path, or of the nearest ancestor found. */
  line(path: YamlPath, from?: PosNode): number;
  root: PosNode | undefined;
}

/**
 * How deep the tree of lines is built while parsing: the root mapping, its
 * keys and values, and the entries of `tools`, whose lines every tool keeps.
 * Lines deeper in an entry are only wanted for a diagnostic; the first such
 * question parses the text again with the whole tree. Building it for every
 * node cost more than the parse itself on a large catalog.
 */
export const SHALLOW_DEPTH = 3;

/** Parses `text` fast, or answers undefined when the careful path must decide. */
export function parseYamlFast(text: string, maxDepth: number = SHALLOW_DEPTH): FastYaml | undefined {
  if ((text.match(ALIAS)?.length ?? 0) > MAX_ALIASES) return undefined;
  const built = buildTree(text, maxDepth);
  if (!built) return undefined;
  return fastYamlOf(text, built.data, built.root, maxDepth === Infinity);
}

/** A FastYaml over data and a tree of lines read from `text` (now, or by an earlier start). */
export function fastYamlOf(text: string, data: unknown, root: PosNode | undefined, whole = false): FastYaml {
  let deep: PosNode | undefined | null = whole ? root : null;
  // The whole tree, parsed again on the first question below the shallow one.
  const deepRoot = (): PosNode | undefined => (deep === null ? (deep = buildTree(text, Infinity)?.root) : deep);
  return { data, root, line: (path, from) => locate(from ?? root, path, deepRoot) };
}

function buildTree(text: string, maxDepth: number): { data: unknown; root: PosNode | undefined } | undefined {
  const lineAt = lineIndex(text);
  const stack: PosNode[] = [{ line: 1, start: 0, children: [], path: [] }];
  // Depth of the node being read; nodes deeper than maxDepth get no PosNode.
  let depth = 0;
  let data: unknown;
  try {
    data = jsYamlLib().load(text, {
      schema: coreWithMerge(),
      listener(event: 'open' | 'close', state: State) {
        if (event === 'open') {
          depth++;
          if (depth > maxDepth) {
            (stack[stack.length - 1]).truncated = true;
            return;
          }
          const start = contentStart(text, state.position);
          stack.push({ line: lineAt(start), start, children: [] });
          return;
        }
        depth--;
        if (depth + 1 > maxDepth) return;
        const node = stack.pop();
        if (!node) return;
        if ((node.start ?? 0) >= state.position) node.line = undefined;
        node.kind = state.kind ?? undefined;
        if (node.kind === 'scalar' && typeof state.result === 'string') node.key = state.result;
        stack[stack.length - 1]?.children.push(node);
      },
    });
  } catch {
    return undefined;
  }
  const root = stack[0]?.children[0];
  if (maxDepth !== Infinity) assignPaths(root, []);
  return { data, root };
}

/** Each node of a shallow tree learns its path, so a deeper question can be asked of the whole tree. */
function assignPaths(node: PosNode | undefined, path: YamlPath): void {
  if (!node) return;
  node.path = path;
  const kids = node.children;
  if (node.kind === 'mapping') {
    for (let i = 0; i + 1 < kids.length; i += 2) {
      const key = kids[i];
      if (key?.key !== undefined) assignPaths(kids[i + 1], [...path, key.key]);
    }
  } else if (node.kind === 'sequence') {
    kids.forEach((k, i) => assignPaths(k, [...path, i]));
  }
}

/** Follows the path through mappings and sequences; a missing step keeps the last line found. */
function locate(start: PosNode | undefined, path: YamlPath, deepRoot: () => PosNode | undefined): number {
  let node = start;
  let best = node?.line ?? 1;
  for (const [i, seg] of path.entries()) {
    if (!node) break;
    if (node.truncated && node.path) {
      // Below the shallow tree: the same question, from the root of the whole one.
      const deep = deepRoot();
      return deep ? locate(deep, [...node.path, ...path.slice(i)], () => deep) : best;
    }
    const next = child(node, seg);
    if (!next) break;
    best = next.keyLine ?? best;
    node = next.value;
    best = node?.line ?? best;
  }
  return best;
}

function child(node: PosNode, seg: string | number): { value: PosNode | undefined; keyLine?: number } | undefined {
  const kids = node.children;
  if (node.kind === 'mapping') {
    for (let i = 0; i + 1 < kids.length; i += 2) {
      const key = kids[i];
      if (key?.key === String(seg)) return { value: kids[i + 1], keyLine: key.line };
    }
    return undefined;
  }
  if (node.kind === 'sequence' && typeof seg === 'number') return kids[seg] ? { value: kids[seg] } : undefined;
  return undefined;
}

/** The first character of the node that opens at `pos`: past spaces, line breaks and comments. */
function contentStart(text: string, pos: number): number {
  let i = pos;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x23 /* # */) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return text.length;
      i = nl + 1;
    } else break;
  }
  return i;
}

/** Maps a character offset to its 1-based line, by binary search over line starts. */
function lineIndex(text: string): (pos: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (pos) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** The code that builds what the parse cache stores (part of its keys: a change to it is a miss). */
export function treeBuilderSource(): string {
  return [buildTree, assignPaths, contentStart, lineIndex].map(String).join('\n');
}
