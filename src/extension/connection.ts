// The MCP server definition VS Code gets, and the config another client
// can paste, as plain data (the token appears only in these values).
import { SESSION_KEY_HEADER } from '../core/server/bucket-key';

export const SERVER_LABEL = 'MCC';

export interface DefinitionData {
  label: string;
  url: string;
  headers: Record<string, string>;
  version: string;
}

export function definitionData(url: string, token: string, sessionKey: string, version: number): DefinitionData {
  return {
    label: SERVER_LABEL,
    url,
    headers: { Authorization: `Bearer ${token}`, [canonicalHeader(SESSION_KEY_HEADER)]: sessionKey },
    version: String(version),
  };
}

/** A ready-to-paste `mcp.json`-style config for another client (its own bucket: no session key). */
export function connectionConfig(url: string, token: string): string {
  const config = {
    servers: {
      mcc: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
    },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** x-mcc-session-key -> X-MCC-Session-Key (HTTP headers are case-insensitive; this reads better). */
export function canonicalHeader(name: string): string {
  return name
    .split('-')
    .map((p) => (p.toLowerCase() === 'mcc' ? 'MCC' : p.charAt(0).toUpperCase() + p.slice(1)))
    .join('-');
}
