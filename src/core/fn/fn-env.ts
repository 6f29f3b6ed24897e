// Environments of function tools: the exec rules (buildToolEnv), plus the
// tool's folder on PYTHONPATH for Python; and who may share a warm runner.
import { delimiter } from 'node:path';
import type { FnTool } from '../catalog/types';
import { buildToolEnv, isContextVar, type ServerEnv, type ToolEnv } from '../runner/env';
import type { RunContext } from '../tool-run/contract';

/** The folder a fn tool runs in and imports from: its cwd, else its catalog's folder. */
export function toolFolder(tool: FnTool): string {
  return tool.cwd ?? tool.catalogDir;
}

/** A Python tool's environment; without a store (introspection) it has no MCC_CTX*. */
export function pythonToolEnv(tool: FnTool, store: Record<string, unknown> | undefined, server: ServerEnv): ToolEnv {
  const built = buildToolEnv(tool, store, server);
  const rest = built.env.PYTHONPATH;
  built.env.PYTHONPATH = rest ? `${toolFolder(tool)}${delimiter}${rest}` : toolFolder(tool);
  return built;
}

/** An environment without any MCC_CTX* (what a warm runner starts with). */
export function withoutContextVars(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (!isContextVar(k)) out[k] = v;
  return out;
}

/**
 * Who may share a warm process or worker: the user, and for anonymous
 * callers, who all share one user name, also the session. Module globals a
 * tool keeps never cross from one to another (buckets never do either).
 */
export function warmPartition(ctx: Pick<RunContext, 'caller' | 'store'>): string {
  const storeUser = typeof ctx.store.user === 'string' ? ctx.store.user : '';
  const anonymous = ctx.caller.user === 'anonymous' || storeUser === 'anonymous';
  return JSON.stringify(anonymous ? [ctx.caller.user, storeUser, ctx.caller.bucketKey] : [ctx.caller.user, storeUser]);
}
