// The one place that builds a subprocess's environment: exec tools (pty and
// pipe), their transforms, curl, JavaScript and Python fn tools and Python
// introspection all get theirs here. Layers, later wins:
// 1. A base from the server's environment. env_passthrough false (default):
//    the non-secret floor (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_*,
//    TERM, TZ, TMPDIR); a list of names: the floor and exactly those; true:
//    all of it. Whatever the passthrough says, the server's own secrets and
//    every MCC_CTX* are left out.
// 2. env_file, then 3. env: the catalog author's own, set on purpose.
// 4. The session store (ctx-env.ts), after every MCC_CTX* the layers above
//    set is gone, so nothing can shadow or forge the caller's identity.
import type { ToolDef } from '../catalog/types';
import { holdsSecret, MINIMAL_SECRETS, type ServerSecrets } from '../secrets';
import { contextEnv, CTX_PREFIX } from './ctx-env';
import { DotenvError, readDotenvFile, type EnvLookup } from './dotenv';
import type { EnvBudget } from './env-limits';
import { ToolInputError } from '../tool-run/errors';

/** Server variables every tool gets (LC_* too): what programs need to run, nothing secret. */
export const ENV_FLOOR = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'TERM', 'TZ', 'TMPDIR'] as const;

export interface ServerEnv {
  /** The server's environment. */
  vars: NodeJS.ProcessEnv;
  secrets: ServerSecrets;
  /** How much of the store goes into the environment (default: envBudget()). */
  budget?: EnvBudget;
}

export interface ToolEnv {
  env: Record<string, string>;
  /** Ends what the environment needed for the run (MCC_CTX_FILE); call when the run is over. */
  dispose(): void;
}

type EnvSource = Pick<ToolDef, 'env' | 'envFile' | 'envPassthrough'>;

export function serverEnv(vars: NodeJS.ProcessEnv = process.env, secrets: ServerSecrets = MINIMAL_SECRETS): ServerEnv {
  return { vars, secrets };
}

/** Any spelling of the MCC_CTX prefix: no case of it survives a layer. */
export function isContextVar(name: string): boolean {
  return name.toUpperCase().startsWith(CTX_PREFIX);
}

/**
 * The environment of one run of `tool` for the caller whose store this is.
 * Without a store (introspection, a module check), no MCC_CTX* is set.
 */
export function buildToolEnv(tool: EnvSource, store: Record<string, unknown> | undefined, server: ServerEnv): ToolEnv {
  const env = baseEnv(tool.envPassthrough, server);
  // ${VAR} in the file expands from the server's environment, as dotenv
  // does, but never to a secret or a forged MCC_CTX*.
  if (tool.envFile) Object.assign(env, readEnvFile(tool.envFile, (name) => serverVar(server, name)));
  Object.assign(env, tool.env);
  for (const [k, v] of Object.entries(env)) {
    if (isContextVar(k)) delete env[k];
    else if (v.includes('\0')) throw new ToolInputError(`environment variable ${k} contains a NUL character, which no process can receive`);
  }
  if (!store) return { env, dispose: () => undefined };
  const ctx = contextEnv(store, server.budget);
  return { env: Object.assign(env, ctx.vars), dispose: () => ctx.dispose() };
}

function inFloor(name: string): boolean {
  return (ENV_FLOOR as readonly string[]).includes(name) || name.startsWith('LC_');
}

function baseEnv(passthrough: boolean | readonly string[], server: ServerEnv): Record<string, string> {
  const wanted = (n: string): boolean => passthrough === true || inFloor(n) || (passthrough !== false && passthrough.includes(n));
  const env: Record<string, string> = {};
  // Names first: reading a value of process.env is a call into the host.
  for (const k of Object.keys(server.vars)) {
    if (!wanted(k) || isContextVar(k)) continue;
    const v = server.vars[k];
    if (v !== undefined && !holdsSecret(k, v, server.secrets)) env[k] = v;
  }
  return env;
}

function serverVar(server: ServerEnv, name: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(server.vars, name) || isContextVar(name)) return undefined;
  const v = server.vars[name];
  return v === undefined || holdsSecret(name, v, server.secrets) ? undefined : v;
}

// Read at call time, so edits to the file apply without a reload.
function readEnvFile(path: string, lookup: EnvLookup): Record<string, string> {
  try {
    return readDotenvFile(path, lookup);
  } catch (e) {
    if (e instanceof DotenvError) throw new ToolInputError(`env_file ${e.message}`);
    throw e;
  }
}
