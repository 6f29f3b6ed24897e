// Batched introspection: one runner process per interpreter and catalog
// load, many targets in, one JSON answer out.
import { startPython } from './python-process';

export interface IntrospectTarget {
  id: string;
  target: string;
  /** Folders put in front of sys.path while this target is imported. */
  path: string[];
  /** Working directory while this target is imported. */
  cwd: string;
}

export interface IntrospectedParam {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
  /** A default that is not JSON: Python keeps it, callers cannot see it. */
  defaultRepr?: string;
}

export type Introspected =
  | { id: string; ok: true; name: string; doc: string; params: IntrospectedParam[]; returns: string | null; takesContext: boolean }
  | { id: string; ok: false; error: string; traceback: string; module?: string };

/** Per-target answers; rejects when the runner itself could not answer. */
export async function introspectBatch(
  interpreter: string,
  targets: IntrospectTarget[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
  wrap?: (file: string, args: readonly string[]) => { file: string; args: string[] },
): Promise<Map<string, Introspected>> {
  const run = startPython({ interpreter, mode: 'introspect', request: { targets }, cwd, env, timeoutMs, ...(wrap ? { wrap } : {}) });
  const r = await run.done;
  if (r.stopped === 'timeout') throw new Error(`introspection with ${interpreter} took longer than ${timeoutMs / 1000}s (an import that never returns?)`);
  if (r.result === undefined) {
    const tail = r.stderr.trim().split('\n').slice(-15).join('\n');
    throw new Error(`the Python runner (${interpreter}) exited with ${r.signal ?? `code ${String(r.code)}`} without an answer${tail ? `:\n${tail}` : ''}`);
  }
  let parsed: { results?: Introspected[] };
  try {
    parsed = JSON.parse(r.result) as { results?: Introspected[] };
  } catch (e) {
    throw new Error(`the Python runner (${interpreter}) answered something that is not JSON: ${(e as Error).message}`);
  }
  return new Map((parsed.results ?? []).map((x) => [x.id, x]));
}
