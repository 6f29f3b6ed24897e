// The `session` argument of MCC's tools: a session handle (SEP-2567), how a
// client without an MCP session (every 2026-07-28 client) keeps using the
// same variables from call to call.
import * as z from 'zod';

export const SESSION_ARG = z
  .string()
  .optional()
  .describe('Session handle from an earlier answer ("Session handle: ..."); omit it on the first call or when your connection has an MCP session');

export const SESSION_HELP =
  'A client without an MCP session gets a session handle in the answer of its first set_session: pass it as `session` in later calls.';
