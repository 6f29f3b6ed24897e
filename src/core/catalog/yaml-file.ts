// Reads one catalog file into its file-level settings and raw tool entries,
// keeping where each node starts so every later diagnostic can name its line.
// Files are read the fast way (yaml-fast.ts) and, when it declines (a parse
// error, many aliases), with the `yaml` package's document model, whose
// error messages say precisely what is wrong and where.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Document, LineCounter, Node } from 'yaml';
import { yamlLib } from '../lazy-libs';
import type { CatalogDiagnostic } from './types';
import { substituteEnv } from './substitute';
import { isPlainObject, setOwn } from '../json/json-value';
import { type FastYaml, type YamlPath } from './yaml-fast';
import { parseYamlCached } from './yaml-cached';
import type { ParseCache } from '../cache/parse-cache';

export type { YamlPath } from './yaml-fast';

/** Finds the line of a value inside one YAML entry (the deepest node found, else the entry's line). */
export interface Locator {
  line(path?: YamlPath): number;
}

/** A Locator over the fast parser's tree of node lines. */
class FastLocator implements Locator {
  constructor(
    private readonly yaml: FastYaml,
    private readonly node: FastYaml['root'],
    private readonly fallback: number,
  ) {}

  line(path: YamlPath = []): number {
    return this.node ? this.yaml.line(path, this.node) : this.fallback;
  }
}

/** A Locator over the `yaml` package's document (the careful path). */
class DocLocator implements Locator {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly root: unknown,
    private readonly fallback = 1,
  ) {}

  line(path: YamlPath = []): number {
    let node = this.deref(this.root);
    let best = this.lineOfNode(node) ?? this.fallback;
    for (const seg of path) {
      let next: unknown;
      if (yamlLib().isMap(node)) {
        const pair = node.items.find((p) => yamlLib().isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        // A missing value (`key:` alone) has no node; the key still has a line.
        best = this.lineOfNode(pair.key) ?? best;
        next = pair.value;
      } else if (yamlLib().isSeq(node) && typeof seg === 'number') {
        next = node.items[seg];
      } else {
        break;
      }
      node = this.deref(next);
      best = this.lineOfNode(node) ?? best;
    }
    return best;
  }

  private deref(n: unknown): unknown {
    return yamlLib().isAlias(n) ? n.resolve(this.doc) : n;
  }

  private lineOfNode(n: unknown): number | undefined {
    if (!yamlLib().isNode(n)) return undefined;
    const range = (n as Node).range;
    if (!range) return undefined;
    return this.lines.linePos(range[0]).line;
  }
}

export interface RawTool {
  /** The entry as plain data, after ${VAR} substitution. */
  value: unknown;
  line: number;
  at: Locator;
}

export interface RawFile {
  file: string;
  dir: string;
  /** File-level settings after substitution (unvalidated). */
  settings: Record<string, unknown>;
  at: Locator;
  tools: RawTool[];
}

/** Reads and parses a file. Returns undefined (with diagnostics) when it cannot be read or parsed. */
export async function readCatalogFile(
  file: string,
  env: NodeJS.ProcessEnv,
  cache?: ParseCache,
): Promise<{ raw?: RawFile; read: boolean; diagnostics: CatalogDiagnostic[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    return { read: false, diagnostics: [{ severity: 'error', file, line: 1, message: `cannot read catalog file: ${reason}` }] };
  }
  return { ...parseCatalogText(file, text, env, cache), read: true };
}

export function parseCatalogText(
  file: string,
  text: string,
  env: NodeJS.ProcessEnv,
  cache?: ParseCache,
): { raw?: RawFile; diagnostics: CatalogDiagnostic[] } {
  const fast = parseYamlCached(text, cache);
  if (!fast) return parseCarefully(file, text, env);
  const rootAt = new FastLocator(fast, fast.root, 1);
  const toolsAt = rootAt.line(['tools']);
  const entries = entriesOf(fast);
  return assemble(file, fast.data, env, [], rootAt, (i) => new FastLocator(fast, entries[i], toolsAt));
}

/** The nodes of the root mapping's `tools` sequence, in order. */
function entriesOf(fast: FastYaml): Array<FastYaml['root']> {
  const kids = fast.root?.kind === 'mapping' ? fast.root.children : [];
  for (let i = 0; i + 1 < kids.length; i += 2) {
    const value = kids[i + 1];
    if (kids[i]?.key === 'tools' && value?.kind === 'sequence') return value.children;
  }
  return [];
}

/** The careful path on its own (tests compare the two). */
export function parseCarefully(file: string, text: string, env: NodeJS.ProcessEnv): { raw?: RawFile; diagnostics: CatalogDiagnostic[] } {
  const lines = new (yamlLib().LineCounter)();
  const doc = yamlLib().parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: false });
  if (doc.errors.length > 0) return { diagnostics: yamlErrors(file, text, doc, lines) };
  const diagnostics: CatalogDiagnostic[] = doc.warnings.map((w) => ({
    severity: 'warning',
    file,
    line: Math.max(lines.linePos(w.pos[0]).line, 1),
    message: `YAML: ${w.message.split('\n')[0]}`,
  }));
  const rootAt = new DocLocator(doc, lines, doc.contents);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    diagnostics.push({ severity: 'error', file, line: 1, message: `invalid YAML (file not loaded): ${(e as Error).message}` });
    return { diagnostics };
  }
  const seqNode = yamlLib().isMap(doc.contents) ? doc.contents.get('tools', true) : undefined;
  const entryAt = (i: number): Locator => new DocLocator(doc, lines, yamlLib().isSeq(seqNode) ? seqNode.items[i] : undefined, rootAt.line(['tools']));
  return assemble(file, data, env, diagnostics, rootAt, entryAt);
}

function yamlErrors(file: string, text: string, doc: Document, lines: LineCounter): CatalogDiagnostic[] {
  // An unclosed quote or bracket is detected at the end of the file; name the last line that has text.
  const lastTextLine = text.trimEnd().split('\n').length;
  return doc.errors.map((err): CatalogDiagnostic => {
    const opened = err.code === 'MISSING_CHAR' ? unclosedQuoteLine(text, err.message) : undefined;
    if (opened) {
      return { severity: 'error', file, line: opened, message: `invalid YAML (file not loaded): a quoted string opened on line ${opened} is never closed` };
    }
    const pos = lines.linePos(err.pos[0]);
    const atEnd = pos.line > lastTextLine;
    return {
      severity: 'error',
      file,
      line: Math.max(Math.min(pos.line, lastTextLine), 1),
      ...(atEnd ? {} : { column: pos.col }),
      message: `invalid YAML (file not loaded): ${err.message.split('\n')[0]}${atEnd ? ' (found at the end of the file: look for an unclosed quote or bracket)' : ''}`,
    };
  });
}

/** The file's settings and tool entries from its parsed data, whichever way it was read. */
function assemble(
  file: string,
  data: unknown,
  env: NodeJS.ProcessEnv,
  diagnostics: CatalogDiagnostic[],
  rootAt: Locator,
  entryAt: (i: number) => Locator,
): { raw?: RawFile; diagnostics: CatalogDiagnostic[] } {
  if (data === null || data === undefined) {
    diagnostics.push({ severity: 'warning', file, line: 1, message: 'catalog file is empty' });
    return { diagnostics };
  }
  if (!isPlainObject(data)) {
    diagnostics.push({
      severity: 'error',
      file,
      line: rootAt.line(),
      message: "a catalog file must be a mapping with a 'tools:' list (file not loaded)",
    });
    return { diagnostics };
  }
  const settings: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    // x- keys are the author's own (anchors); tools are substituted entry by entry below.
    // setOwn: a key named __proto__ is warned about as unknown, not made the prototype.
    if (!k.startsWith('x-')) setOwn(settings, k, k === 'tools' ? v : substituteEnv(v, env));
  }
  const tools: RawTool[] = [];
  const list = settings.tools;
  if (Array.isArray(list)) {
    list.forEach((entry, i) => {
      const at = entryAt(i);
      tools.push({ value: substituteEnv(entry, env), line: at.line(), at });
    });
  }
  return { raw: { file, dir: dirname(file), settings, at: rootAt, tools }, diagnostics };
}

/** The first line with an odd number of the missing quote character: where the string was opened. */
function unclosedQuoteLine(text: string, message: string): number | undefined {
  const quote = /"quote|double/i.test(message) ? '"' : /'|single/i.test(message) ? "'" : undefined;
  if (!quote) return undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const body = lines[i].replace(/^\s*#.*$/, '');
    const count = quote === '"' ? (body.replace(/\\./g, '').match(/"/g) ?? []).length : (body.replace(/''/g, '').match(/'/g) ?? []).length;
    if (count % 2 === 1) return i + 1;
  }
  return undefined;
}
