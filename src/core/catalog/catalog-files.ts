// The catalog files a list of paths names: a file as it is, a folder's
// *.yaml and *.yml files in name order, a glob pattern's matches. Problems
// (a missing path, an empty folder or pattern) become diagnostics.
import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { CatalogDiagnostic } from './types';
import { expandGlob, isGlob } from './path-glob';

const YAML_EXT = new Set(['.yaml', '.yml']);

export async function expandPaths(paths: string[], diagnostics: CatalogDiagnostic[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    if (isGlob(p)) {
      const matched = expandGlob(abs);
      if (matched.length === 0) diagnostics.push({ severity: 'warning', file: abs, line: 1, message: 'catalog pattern matches no *.yaml or *.yml file' });
      out.push(...matched);
      continue;
    }
    let isDir = false;
    try {
      isDir = (await stat(abs)).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file or folder' : (e as Error).message;
      diagnostics.push({ severity: 'error', file: abs, line: 1, message: `cannot read catalog path: ${reason}` });
      continue;
    }
    if (!isDir) {
      out.push(abs);
      continue;
    }
    try {
      const names = (await readdir(abs, { withFileTypes: true }))
        .filter((d) => !d.isDirectory() && YAML_EXT.has(extname(d.name).toLowerCase()))
        .map((d) => d.name)
        .sort();
      if (names.length === 0) diagnostics.push({ severity: 'warning', file: abs, line: 1, message: 'catalog folder has no *.yaml or *.yml files' });
      out.push(...names.map((n) => join(abs, n)));
    } catch (e) {
      diagnostics.push({ severity: 'error', file: abs, line: 1, message: `cannot list catalog folder: ${(e as Error).message}` });
    }
  }
  return [...new Set(out)];
}
