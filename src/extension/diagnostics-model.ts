// Catalog diagnostics grouped by file with 0-based positions, for the
// DiagnosticCollection in diagnostics.ts.
import type { CatalogDiagnostic } from '../core/catalog/types';

export interface FileProblem {
  severity: 'error' | 'warning';
  message: string;
  /** 0-based. */
  line: number;
  /** 0-based; the whole line when undefined. */
  column?: number;
}

export function problemsByFile(diags: readonly CatalogDiagnostic[]): Map<string, FileProblem[]> {
  const out = new Map<string, FileProblem[]>();
  for (const d of diags) {
    const list = out.get(d.file) ?? [];
    list.push({
      severity: d.severity,
      message: d.message,
      line: Math.max(0, (d.line || 1) - 1),
      ...(d.column !== undefined && d.column > 0 ? { column: d.column - 1 } : {}),
    });
    out.set(d.file, list);
  }
  return out;
}
