// The audit record of one MCP tool call, and its one log line. Every call
// of search, describe_tools, get_session, set_session and execute writes
// exactly one, refusals included (see call/audit-trail.ts).
import { jsonForLog, logField } from '../log-text';

export interface AuditEntry {
  at: number;
  user: string;
  /** The bucket the call used (bucket-key.ts). */
  bucketKey: string;
  /** The catalog tool's key for execute; else the MCP tool's name (set_session, search…). */
  toolKey: string;
  /** Params as validated with overrides masked (execute), or what identifies the call. */
  params: Record<string, unknown>;
  durationMs: number;
  /** The run's return code; 0 for a successful non-run call; 'error' when nothing ran. */
  code: number | 'error';
  /** Why the call was refused or failed before running (its first line). */
  error?: string;
  /** The client's name as it introduced itself (bounded). */
  client?: string;
  /** The sandbox an execute ran in: its default profile or the tool's own (absent: none). */
  sandbox?: 'default' | 'tool';
}

/** Params longer than this (as JSON) are cut in the log line. */
const PARAMS_IN_LINE = 500;

/** A bucket key as a log shows it: short enough to read, long enough to tell apart. */
export function shortBucketKey(key: string): string {
  return key.length <= 10 ? key : `${key.slice(0, 8)}…`;
}

/** user, bucket key, tool key, masked params, code, error, duration, sandbox and client; every field escaped. */
export function formatAuditLine(a: AuditEntry, bucketLabel: (key: string) => string = shortBucketKey): string {
  const err = a.error ? ` (${logField(a.error, 300)})` : '';
  const client = a.client !== undefined ? ` client=${jsonForLog(a.client, 250)}` : '';
  const sandbox = a.sandbox !== undefined ? ` sandbox=${a.sandbox}` : '';
  return (
    `call ${logField(a.user)} bucket=${logField(bucketLabel(a.bucketKey))} ${logField(a.toolKey)} ` +
    `${jsonForLog(a.params, PARAMS_IN_LINE)} -> ${a.code}${err} in ${a.durationMs} ms${sandbox}${client}`
  );
}
