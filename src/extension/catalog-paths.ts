// Where the catalog lives: `mcc.catalogs` entries (files, folders or glob
// patterns, workspace-relative or absolute) resolved against the workspace folders.
import { isAbsolute, join, normalize } from 'node:path';
import { catalogPathExists } from '../core/catalog/path-glob';

export interface CatalogPaths {
  /** Every resolved candidate, existing or not (for watchers). */
  candidates: string[];
  /** The candidates that exist now (what gets loaded). */
  existing: string[];
  /** Entries the user configured that exist in no folder (worth a warning). */
  missing: string[];
}

export function resolveCatalogPaths(entries: readonly string[], folders: readonly string[], exists: (p: string) => boolean = catalogPathExists): CatalogPaths {
  const candidates: string[] = [];
  const missing: string[] = [];
  for (const entry of entries) {
    const resolved = isAbsolute(entry) ? [normalize(entry)] : folders.map((f) => join(f, entry));
    for (const p of resolved) if (!candidates.includes(p)) candidates.push(p);
    if (!resolved.some((p) => exists(p))) missing.push(entry);
  }
  return { candidates, existing: candidates.filter((p) => exists(p)), missing };
}
