// `sandbox:` of a tool or a catalog file: false, true / 'default', or a
// mapping { filesystem: { read, write }, network }. Relative paths resolve
// against the catalog file's folder, as every path of a catalog does. The
// runtime that enforces it lives in core/sandbox/ (a floor above this one).
import { describeValue } from './coerce';
import { isPlainObject } from '../json/json-value';
import { readBool, readStringList, resolvePath, type Reporter } from './field-readers';
import type { SandboxSetting, SandboxSpec } from './types';
import type { YamlPath } from './yaml-file';

const SANDBOX_FIELDS = ['filesystem', 'network'];
const FILESYSTEM_FIELDS = ['read', 'write'];
/** Written as is, never resolved: the sandbox's private temporary folder. */
export const SANDBOX_TMPDIR = '$TMPDIR';

/** The setting, or undefined when absent or invalid (an invalid one is an error). */
export function readSandbox(r: Reporter, v: unknown, dir: string, path: YamlPath = ['sandbox']): SandboxSetting | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === false) return false;
  if (v === true || v === 'default') return 'default';
  if (!isPlainObject(v)) {
    r.error(`'sandbox' must be false, true, 'default' or a mapping (filesystem, network), got ${describeValue(v)}`, path);
    return undefined;
  }
  const before = r.errors;
  unknownKeys(r, v, SANDBOX_FIELDS, path);
  const spec: SandboxSpec = {};
  const network = readBool(r, v.network, [...path, 'network']);
  if (network !== undefined) spec.network = network;
  const fs = v.filesystem;
  if (fs !== undefined && fs !== null) {
    if (!isPlainObject(fs)) r.error(`'sandbox.filesystem' must be a mapping (read, write), got ${describeValue(fs)}`, [...path, 'filesystem']);
    else {
      unknownKeys(r, fs, FILESYSTEM_FIELDS, [...path, 'filesystem']);
      const read = readPaths(r, fs.read, dir, [...path, 'filesystem', 'read']);
      const write = readPaths(r, fs.write, dir, [...path, 'filesystem', 'write']);
      if (read) spec.read = read;
      if (write) spec.write = write;
    }
  }
  return r.errors > before ? undefined : spec;
}

function unknownKeys(r: Reporter, v: Record<string, unknown>, known: string[], path: YamlPath): void {
  const where = path.join('.');
  for (const k of Object.keys(v)) {
    if (!known.includes(k)) r.error(`unknown key '${k}' in '${where}'; known: ${known.join(', ')}`, [...path, k]);
  }
}

function readPaths(r: Reporter, v: unknown, dir: string, path: YamlPath): string[] | undefined {
  const list = readStringList(r, v, path);
  if (!list) return undefined;
  const out: string[] = [];
  list.forEach((p, i) => {
    if (p.trim() === '') r.error(`'${path.join('.')}' has an empty path`, [...path, i]);
    else out.push(p === SANDBOX_TMPDIR ? p : resolvePath(dir, p));
  });
  return out;
}
