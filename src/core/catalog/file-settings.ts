// File-level settings of a catalog file: groups, env, env_file, sandbox, tools.
import { describeValue } from './coerce';
import { Reporter, readEnvMap, readString, readStringList, resolvePath } from './field-readers';
import { toolNameProblem } from './naming-rules';
import { readSandbox } from './sandbox-field';
import type { FileDefaults } from './parse-tool';
import type { RawFile } from './yaml-file';
import type { CatalogDiagnostic } from './types';

const FILE_FIELDS = new Set(['groups', 'group', 'env', 'env_file', 'sandbox', 'tools']);

/** Returns the defaults, or undefined when they are unusable (then no tool of the file loads). */
export function parseFileSettings(raw: RawFile): { defaults?: FileDefaults; diagnostics: CatalogDiagnostic[] } {
  const r = new Reporter(raw.file, raw.at);
  const s = raw.settings;
  for (const k of Object.keys(s)) {
    if (!FILE_FIELDS.has(k)) r.warn(`unknown top-level field '${k}' (ignored; prefix it with 'x-' to keep it quietly)`, [k]);
  }
  if (s.groups !== undefined && s.group !== undefined) r.warn("has both 'groups' and 'group'; 'groups' is used", ['group']);
  const groupsField = s.groups !== undefined ? 'groups' : 'group';
  const groups = [...new Set(readStringList(r, s[groupsField], [groupsField]) ?? ['public'])];
  for (const g of groups) {
    const problem = toolNameProblem(g, 'group');
    if (problem) r.error(problem, [groupsField]);
  }
  const env = readEnvMap(r, s.env, ['env']) ?? {};
  const envFile = readString(r, s.env_file, ['env_file']);
  const sandbox = readSandbox(r, s.sandbox, raw.dir);
  if (s.tools === undefined || s.tools === null) r.warn("catalog file has no 'tools:' list");
  else if (!Array.isArray(s.tools)) r.error(`'tools' must be a list of tool entries, got ${describeValue(s.tools)}`, ['tools']);
  if (r.errors > 0) {
    r.subject = '';
    r.error('file-level settings are invalid, so no tool of this file is loaded');
    return { diagnostics: r.diagnostics };
  }
  const defaults: FileDefaults = { groups, env, ...(envFile !== undefined ? { envFile: resolvePath(raw.dir, envFile) } : {}), ...(sandbox !== undefined ? { sandbox } : {}) };
  return { defaults, diagnostics: r.diagnostics };
}
