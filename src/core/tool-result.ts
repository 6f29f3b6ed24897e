// What a tool call answers, independent of the MCP wire format.

export interface ToolCallResult {
  isError: boolean;
  text: string;
  /** Details of a run (returncode, stdout, stderr, …), as structuredContent. */
  structured?: Record<string, unknown>;
}

export function ok(text: string, structured?: Record<string, unknown>): ToolCallResult {
  return structured ? { isError: false, text, structured } : { isError: false, text };
}

export function fail(text: string, structured?: Record<string, unknown>): ToolCallResult {
  return structured ? { isError: true, text, structured } : { isError: true, text };
}
