// Environments of function tools: the exec rules (buildToolEnv), plus the
// tool's folder on PYTHONPATH for Python.
import { delimiter } from 'node:path';
import type { FnTool } from '../catalog/types';
import { buildToolEnv } from '../runner/env';

/** The folder a fn tool runs in and imports from: its cwd, else its catalog's folder. */
export function toolFolder(tool: FnTool): string {
  return tool.cwd ?? tool.catalogDir;
}

export function pythonToolEnv(tool: FnTool, store: Record<string, unknown>, baseEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env = buildToolEnv(tool, store, baseEnv);
  const rest = env.PYTHONPATH;
  env.PYTHONPATH = rest ? `${toolFolder(tool)}${delimiter}${rest}` : toolFolder(tool);
  return env;
}

/** The server's environment without any MCC_CTX*, for work outside a call (introspection). */
export function withoutContextVars(baseEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) {
    if (v !== undefined && !k.toUpperCase().startsWith('MCC_CTX')) env[k] = v;
  }
  return env;
}
