// The environment of a tool's subprocess, shared by exec and function tools.
// Layers, later wins: the server's environment (only with env_passthrough),
// the env_file, the tool's env. Then every MCC_CTX* from those layers goes,
// and the session store is applied last, so nothing a catalog or the server
// environment says can shadow or forge the caller's identity.
import type { ToolDef } from '../catalog/types';
import { DotenvError, readDotenvFile, type EnvLookup } from './dotenv';
import { ToolInputError } from './errors';

const CTX_PREFIX = 'MCC_CTX';
// Store keys are slugs; anything else could not be a variable name.
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type EnvSource = Pick<ToolDef, 'env' | 'envFile' | 'envPassthrough'>;

export function buildToolEnv(
  tool: EnvSource,
  store: Record<string, unknown>,
  baseEnv: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (tool.envPassthrough) {
    for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined) env[k] = v;
  }
  // ${VAR} in the file expands from the server's environment, as dotenv does.
  if (tool.envFile) Object.assign(env, readEnvFile(tool.envFile, (name) => (Object.prototype.hasOwnProperty.call(baseEnv, name) ? baseEnv[name] : undefined)));
  Object.assign(env, tool.env);

  for (const k of Object.keys(env)) {
    // Case-insensitive so that no spelling of the prefix survives anywhere.
    if (k.toUpperCase().startsWith(CTX_PREFIX)) delete env[k];
  }
  env[CTX_PREFIX] = JSON.stringify(store);
  for (const [name, value] of Object.entries(store)) {
    if (!ENV_NAME.test(name) || value === undefined) continue;
    env[`${CTX_PREFIX}_${name.toUpperCase()}`] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return env;
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
