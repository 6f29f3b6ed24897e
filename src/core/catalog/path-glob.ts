// Catalog paths may be glob patterns (`catalogs/*.yaml`, `tools/**/*.yml`),
// as MCC's tool paths may: a pattern loads every YAML file it matches,
// recursively where it says `**`.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { globLib } from '../lazy-libs';

const MAGIC = /[*?[\]{}]/;
const YAML_FILE = /\.ya?ml$/i;

function hasMagic(path: string): boolean {
  return MAGIC.test(path);
}

/** A path with glob characters that names no existing file or folder as written. */
export function isGlob(path: string): boolean {
  return hasMagic(path) && !existsSync(resolve(path));
}

/** The folder a pattern starts in: its longest leading part without glob characters. */
export function globBase(pattern: string): string {
  const abs = isAbsolute(pattern) ? pattern : resolve(pattern);
  const parts = abs.split(sep);
  const firstMagic = parts.findIndex((p) => hasMagic(p));
  const fixed = firstMagic < 0 ? parts : parts.slice(0, firstMagic);
  return fixed.join(sep) || sep;
}

/** The YAML files a pattern matches, absolute and sorted. */
export function expandGlob(pattern: string): string[] {
  const abs = isAbsolute(pattern) ? pattern : resolve(pattern);
  const base = globBase(abs);
  const rest = abs.slice(base.length).replace(/^[/\\]+/, '');
  const found = globLib().globSync(rest.split(sep).join('/'), { cwd: base, absolute: true, onlyFiles: true, followSymbolicLinks: true });
  return found.filter((f) => YAML_FILE.test(f)).map((f) => join(f)).sort();
}

/** Whether a catalog path names something to load: an existing file or folder, or a pattern with matches. */
export function catalogPathExists(path: string): boolean {
  return catalogPathProblem(path) === undefined;
}

/** Why a catalog path given on the command line loads nothing, or undefined when it names something. */
export function catalogPathProblem(path: string): string | undefined {
  if (!isGlob(path)) return existsSync(path) ? undefined : 'no such file or folder';
  return expandGlob(path).length > 0 ? undefined : 'the pattern matches no .yaml or .yml file';
}
