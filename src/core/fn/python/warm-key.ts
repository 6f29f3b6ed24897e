// The pool key of a warm Python call: which calls may share one warm
// process (see python-pool.ts).
import { createHash } from 'node:crypto';
import { withoutContextVars } from '../fn-env';

export interface WarmCallSpec {
  interpreter: string;
  cwd: string;
  /**
   * Who may share a process: calls of different partitions never do. The
   * caller's user, and for anonymous callers (who all share one user name)
   * also their session, so module globals never cross between them.
   */
  partition: string;
  /** The call's whole environment, MCC_CTX* included. */
  env: Record<string, string>;
  request: { target: string; kwargs: Record<string, unknown>; context: Record<string, unknown> };
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;
  /** Output kept per stream (default 1 MiB). */
  maxOutputBytes?: number;
  /** The tool's sandbox: its profile's key (one warm pool per profile) and the wrapper of the command. */
  sandbox?: WarmSandbox;
}

export interface WarmSandbox {
  key: string;
  wrap: (file: string, args: readonly string[]) => { file: string; args: string[] };
}

/**
 * The pool key: calls with the same key may share a process. The caller's
 * partition (see WarmCallSpec) is part of it, so module globals a tool keeps
 * never cross from one user, or one anonymous session, to another (buckets
 * never do either).
 */
export function warmKey(interpreter: string, cwd: string, env: Record<string, string>, partition: string, sandbox = 'none'): string {
  const fixed = Object.entries(withoutContextVars(env)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify([interpreter, cwd, partition, fixed, sandbox])).digest('hex');
}
