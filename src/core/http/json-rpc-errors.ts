// HTTP error answers of the endpoint: the status the Streamable HTTP
// transport asks for, and a JSON-RPC error body without an id.
import type { ServerResponse } from 'node:http';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** Implementation-defined server error (the SDK's choice for transport-level refusals). */
export const SERVER_ERROR = -32000;
/** The SDK's code for an unknown or ended MCP session, kept so clients see one code for it. */
export const SESSION_NOT_FOUND = -32001;

export interface HttpRefusal {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

export function refusal(status: number, message: string, code = SERVER_ERROR, headers?: Record<string, string>): HttpRefusal {
  return headers ? { status, code, message, headers } : { status, code, message };
}

export function sendRefusal(res: ServerResponse, r: HttpRefusal): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = r.status;
  for (const [k, v] of Object.entries(r.headers ?? {})) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: r.code, message: r.message }, id: null }));
}
