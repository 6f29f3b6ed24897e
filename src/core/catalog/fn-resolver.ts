// The hook through which function tools are completed after parsing: a
// resolver (the Python runtime) introspects callables and fills in name,
// description, params, returns and takesContext.
import type { CatalogDiagnostic, FnTool } from './types';

export interface FnResolver {
  /**
   * Receives every fn tool of one load, once, after all files are parsed.
   * Returns the tools that should load (completed) and any problems found;
   * a tool left out is not loaded. Keys are computed by the loader afterwards.
   */
  resolve(tools: FnTool[]): Promise<{ tools: FnTool[]; diagnostics: CatalogDiagnostic[] }>;
}
