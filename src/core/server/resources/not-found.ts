import { McpError } from '@modelcontextprotocol/sdk/types.js';

/** MCP's "resource not found" error (-32002 in the spec). */
export const RESOURCE_NOT_FOUND = -32002;

export function resourceNotFound(uri: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}
