// Loads catalog files and folders into one Catalog: parse every file, let a
// resolver complete function tools, then compute keys and reject duplicates.
// Problems become located diagnostics; the load itself never throws.
import type { Catalog, CatalogDiagnostic, FnTool, ToolDef } from './types';
import type { FnResolver } from './fn-resolver';
import type { Logger } from '../host';
import { silentLogger } from '../host';
import { readCatalogFile } from './yaml-file';
import type { ParseCache } from '../cache/parse-cache';
import { parseFileSettings } from './file-settings';
import { parseTool } from './parse-tool';
import { paramNameProblem, toolKey, toolNameProblem } from './naming-rules';
import { expandPaths } from './catalog-files';
import { checkDirectNames } from './direct-names';

export interface LoadCatalogOptions {
  /** Environment for ${VAR} substitution (default process.env). */
  env?: NodeJS.ProcessEnv;
  fnResolver?: FnResolver;
  logger?: Logger;
  /** Parsed files kept between starts (see cache/parse-cache.ts). */
  parseCache?: ParseCache;
}

export async function loadCatalog(paths: string[], opts: LoadCatalogOptions = {}): Promise<Catalog> {
  const env = opts.env ?? process.env;
  const logger = opts.logger ?? silentLogger;
  const diagnostics: CatalogDiagnostic[] = [];
  const files = await expandPaths(paths, diagnostics);

  const parsed: ToolDef[] = [];
  const readFiles: string[] = [];
  for (const file of files) {
    const { raw, read, diagnostics: fileDiags } = await readCatalogFile(file, env, opts.parseCache);
    diagnostics.push(...fileDiags);
    // Unparsable files are still listed, so a watcher reloads once they are fixed.
    if (read) readFiles.push(file);
    if (!raw) continue;
    const settings = parseFileSettings(raw);
    diagnostics.push(...settings.diagnostics);
    if (!settings.defaults) continue;
    const defaults = settings.defaults;
    raw.tools.forEach((entry, i) => {
      try {
        const { tool, diagnostics: toolDiags } = parseTool(entry, raw.file, raw.dir, defaults, i);
        diagnostics.push(...toolDiags);
        if (tool) parsed.push(tool);
      } catch (e) {
        // A loader bug must cost one tool, not the catalog.
        diagnostics.push({ severity: 'error', file: raw.file, line: entry.line, message: `tool #${i + 1} could not be loaded: ${(e as Error).message}` });
      }
    });
  }

  const tools = await completeFnTools(parsed, opts.fnResolver, diagnostics);
  const fileOrder = new Map(files.map((f, i) => [f, i]));
  tools.sort((a, b) => (fileOrder.get(a.source.file) ?? 0) - (fileOrder.get(b.source.file) ?? 0) || a.source.line - b.source.line);

  const byKey = new Map<string, ToolDef>();
  for (const tool of tools) {
    tool.key = toolKey(tool.groups, tool.name);
    const first = byKey.get(tool.key);
    if (first) {
      diagnostics.push({
        severity: 'error',
        file: tool.source.file,
        line: tool.source.line,
        message: `duplicate tool key '${tool.key}': defined at ${where(first)} and again at ${where(tool)}; the second is not loaded`,
      });
      continue;
    }
    byKey.set(tool.key, tool);
  }
  const named = checkDirectNames(byKey, diagnostics);
  logger.debug(`catalog: ${named.size} tools from ${readFiles.length} files, ${diagnostics.length} diagnostics`);
  return { tools: named, diagnostics, files: readFiles };
}

function where(t: ToolDef): string {
  return `${t.source.file}:${t.source.line}`;
}

/** Files named by the paths: a file as given, a folder's *.yaml / *.yml sorted, a pattern's matches; each once. */
async function completeFnTools(tools: ToolDef[], resolver: FnResolver | undefined, diagnostics: CatalogDiagnostic[]): Promise<ToolDef[]> {
  const others: ToolDef[] = tools.filter((t) => t.kind !== 'fn');
  const fns = tools.filter((t): t is FnTool => t.kind === 'fn');
  if (fns.length === 0) return others;
  if (!resolver) {
    for (const t of fns) {
      if (t.language === 'js' || t.paramsDeclared) others.push(t);
      else {
        diagnostics.push({
          severity: 'warning',
          file: t.source.file,
          line: t.source.line,
          message: `tool '${t.name}': function tools need the Python runtime; not supported yet (declare 'params' to load it without introspection)`,
        });
      }
    }
    return others;
  }
  let resolved: FnTool[];
  try {
    const result = await resolver.resolve(fns);
    resolved = result.tools;
    diagnostics.push(...result.diagnostics);
  } catch (e) {
    for (const t of fns) {
      diagnostics.push({ severity: 'error', file: t.source.file, line: t.source.line, message: `tool '${t.name}': function tool could not be resolved: ${(e as Error).message}` });
    }
    return others;
  }
  for (const t of resolved) {
    const problems = [toolNameProblem(t.name, 'tool name'), ...t.params.map((p) => paramNameProblem(p.name))].filter((m) => m !== undefined);
    if (problems.length > 0) {
      diagnostics.push({ severity: 'error', file: t.source.file, line: t.source.line, message: `tool '${t.name}': ${problems.join('; ')}` });
      continue;
    }
    others.push(t);
  }
  return others;
}

/** A catalog with nothing in it (before the first load, or with no files). */
export const EMPTY_CATALOG: Catalog = { tools: new Map(), diagnostics: [], files: [] };

/** Writes each diagnostic as `file:line: message` at its own severity. */
export function logCatalogDiagnostics(catalog: Catalog, logger: Logger): void {
  for (const d of catalog.diagnostics) {
    const text = `${d.file}:${d.line}: ${d.message}`;
    if (d.severity === 'error') logger.error(text);
    else logger.warn(text);
  }
}
