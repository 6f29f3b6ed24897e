// The MCP tool name of each catalog tool when it is offered as a tool of its
// own ("direct" tools): the key with each '.' written '__', because clients
// such as VS Code (and the model APIs behind them) take only [A-Za-z0-9_-].
// The server maps names back through the catalog, never by string surgery,
// so the mapping is exact as long as no two keys share a name: two that
// would, or a name past MCP's 128 characters, are a load error.
import type { CatalogDiagnostic, ToolDef } from './types';

/** MCP tool names: 1–128 of A-Z a-z 0-9 _ - . (we never produce '.'). */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The server's own tools, which no catalog tool may shadow. */
export const BUILTIN_TOOL_NAMES: readonly string[] = ['search', 'execute', 'describe_tools', 'get_session', 'set_session'];

export function directToolName(key: string): string {
  return key.split('.').join('__');
}

/**
 * Drops the tools whose direct name is taken (by a built-in tool or an
 * earlier catalog tool) or not a valid MCP tool name, with an error naming
 * both places; returns the tools that remain, in order.
 */
export function checkDirectNames(tools: Map<string, ToolDef>, diagnostics: CatalogDiagnostic[]): Map<string, ToolDef> {
  const byName = new Map<string, ToolDef>();
  const kept = new Map<string, ToolDef>();
  for (const [key, tool] of tools) {
    const name = directToolName(key);
    const error = (message: string): void => void diagnostics.push({ severity: 'error', file: tool.source.file, line: tool.source.line, message });
    if (!MCP_TOOL_NAME.test(name)) {
      error(`tool key '${key}' is too long for an MCP tool name (${name.length} characters as '${name}', at most 128); shorten its name or groups; it is not loaded`);
      continue;
    }
    if (BUILTIN_TOOL_NAMES.includes(name)) {
      error(`tool key '${key}' would be offered as the MCP tool '${name}', which is the server's own tool; give it a group or another name; it is not loaded`);
      continue;
    }
    const first = byName.get(name);
    if (first) {
      error(
        `tool keys '${first.key}' (${first.source.file}:${first.source.line}) and '${key}' would both be the MCP tool '${name}' ` +
          `('.' becomes '__'); rename one; the second is not loaded`,
      );
      continue;
    }
    byName.set(name, tool);
    kept.set(key, tool);
  }
  return kept;
}
