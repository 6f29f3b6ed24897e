import { ResourceNotFoundError } from '@modelcontextprotocol/server';

/**
 * MCP's "resource not found". The SDK answers it as invalid params (-32602)
 * with the URI in `data`, on both revisions, as the 2026-07-28 spec requires.
 */
export function resourceNotFound(uri: string): ResourceNotFoundError {
  return new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
}
