// The environment for an `npm` the setup scripts start on their own.
//
// Run from `npm start` / `npm test`, a script inherits the outer npm's state:
// npm_config_* (its user agent names the outer Node, which code-server's
// postinstall reads and refuses), npm_lifecycle_*, npm_package_*, npm_execpath,
// INIT_CWD, and node_modules/.bin folders prepended to PATH. An inner install
// must see none of it, only the machine's own configuration (which it reads
// from its npmrc files itself).
import path from 'node:path';

// How to reach the registry is the machine's, not the outer run's: a registry,
// proxy or CA given only in the environment is kept so the inner npm can still
// reach the registry. Nothing here names a Node version or a lifecycle.
const KEPT_NPM_CONFIG = new Set(['registry', 'proxy', 'https_proxy', 'http_proxy', 'noproxy', 'cafile', 'ca', 'strict_ssl']);

const OUTER_RUN_NAMES = new Set(['npm_execpath', 'npm_node_execpath', 'npm_command', 'init_cwd', 'node']);

/** True for a variable the outer npm put there for its own run. */
function isOuterNpmVariable(name) {
  const lower = name.toLowerCase();
  if (OUTER_RUN_NAMES.has(lower)) return true;
  if (lower.startsWith('npm_config_')) return !KEPT_NPM_CONFIG.has(lower.slice('npm_config_'.length).replace(/-/g, '_'));
  return lower.startsWith('npm_lifecycle_') || lower.startsWith('npm_package_');
}

/** PATH entries npm run-script prepends: every node_modules/.bin and its node-gyp-bin shim. */
function isOuterNpmPathEntry(entry) {
  const e = entry.replace(/\\/g, '/');
  return /\/node_modules\/\.bin\/?$/.test(e) || /@npmcli\/run-script\/lib\/node-gyp-bin\/?$/.test(e);
}

/**
 * A copy of `env` fit for a child npm: the outer npm's variables and PATH
 * entries removed, then `extra` applied on top (the caller's own settings,
 * e.g. a PATH with Node 24 first, or npm_config_nodedir on purpose).
 */
export function npmChildEnv(env = process.env, extra = {}) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || isOuterNpmVariable(k)) continue;
    out[k] = v;
  }
  for (const key of Object.keys(out)) {
    if (key.toUpperCase() !== 'PATH') continue;
    out[key] = out[key].split(path.delimiter).filter((p) => p && !isOuterNpmPathEntry(p)).join(path.delimiter);
  }
  return { ...out, ...extra };
}
