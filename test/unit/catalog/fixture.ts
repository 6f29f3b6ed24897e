// Temp-dir catalog fixtures for the loader tests.
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { loadCatalog, type LoadCatalogOptions } from '../../../src/core/catalog/load';
import type { Catalog, CatalogDiagnostic, ToolDef } from '../../../src/core/catalog/types';

const dirs: string[] = [];
void after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Writes the files (relative name -> text) into a fresh temp dir and returns the dir. */
export async function writeFiles(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcc-catalog-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** Loads one YAML text as tools.yaml; returns the catalog and the file path. */
export async function loadText(text: string, opts: LoadCatalogOptions = {}): Promise<{ catalog: Catalog; file: string; dir: string }> {
  const dir = await writeFiles({ 'tools.yaml': text });
  const file = join(dir, 'tools.yaml');
  const catalog = await loadCatalog([file], { env: {}, ...opts });
  return { catalog, file, dir };
}

/** 1-based line of the first line containing needle (after `from` lines). */
export function lineOf(text: string, needle: string, nth = 1): number {
  const lines = text.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].includes(needle) && ++seen === nth) return i + 1;
  }
  throw new Error(`fixture has no line with ${JSON.stringify(needle)}`);
}

export function errors(c: Catalog): CatalogDiagnostic[] {
  return c.diagnostics.filter((d) => d.severity === 'error');
}

export function warnings(c: Catalog): CatalogDiagnostic[] {
  return c.diagnostics.filter((d) => d.severity === 'warning');
}

export function tool(c: Catalog, key: string): ToolDef {
  const t = c.tools.get(key);
  if (!t) throw new Error(`no tool '${key}'; have: ${[...c.tools.keys()].join(', ')}; diagnostics: ${JSON.stringify(c.diagnostics)}`);
  return t;
}

export function only(ds: CatalogDiagnostic[], match: RegExp): CatalogDiagnostic {
  const found = ds.filter((d) => match.test(d.message));
  if (found.length !== 1) throw new Error(`expected one diagnostic matching ${String(match)}, got ${JSON.stringify(ds, null, 1)}`);
  return found[0];
}
