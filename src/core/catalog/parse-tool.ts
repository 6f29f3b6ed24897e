// One `tools:` entry -> a ToolDef (key filled in later by the loader).
import type { CatalogDiagnostic, FnTool, Limits, SandboxSetting, ToolAnnotations, ToolBase, ToolDef, ParamSpec } from './types';
import { describeValue } from './coerce';
import { isPlainObject } from '../json/json-value';
import { Reporter, readBool, readEnvMap, readPassthrough, readPositive, readString, readStringList, readText, resolvePath } from './field-readers';
import { toolNameProblem } from './naming-rules';
import { parseParams } from './parse-params';
import { curlCommand, curlQuotesUrl } from './curl';
import { parseFnTarget } from './fn-target';
import { readSandbox } from './sandbox-field';
import { unquotedParams } from './template-lint';
import { checkTemplate } from '../template/render';
import { templateVariables } from '../template/variables';
import type { RawTool } from './yaml-file';

/** What a file gives every tool it holds. */
export interface FileDefaults {
  groups: string[];
  env: Record<string, string>;
  /** Absolute. */
  envFile?: string;
  /** The file's `sandbox:`, paths resolved against its folder. */
  sandbox?: SandboxSetting;
}

const TOOL_FIELDS = new Set([
  'name', 'description', 'example', 'groups', 'group', 'params', 'parameters', 'exec', 'curl', 'fn', 'python',
  'stdin', 'cwd', 'env', 'env_file', 'env_passthrough', 'timeout', 'limits', 'transform', 'cache_ttl', 'pty', 'returns',
  'return_type', 'annotations', 'sandbox',
]);
const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const LIMIT_FIELDS = ['timeout', 'mem_mb', 'cpu_sec', 'fsize_mb', 'nofile'] as const;
const KINDS = ['exec', 'curl', 'fn'] as const;

export function parseTool(
  raw: RawTool,
  file: string,
  dir: string,
  defaults: FileDefaults,
  index: number,
): { tool?: ToolDef; diagnostics: CatalogDiagnostic[] } {
  const r = new Reporter(file, raw.at);
  const v = raw.value;
  if (!isPlainObject(v)) {
    r.error(`tool #${index + 1}: each tool must be a mapping (name, description, exec/curl/fn, ...), got ${describeValue(v)}`);
    return { diagnostics: r.diagnostics };
  }
  r.subject = typeof v.name === 'string' && v.name !== '' ? `tool '${v.name}': ` : `tool #${index + 1}: `;
  for (const k of Object.keys(v)) {
    if (!TOOL_FIELDS.has(k) && !k.startsWith('x-')) r.warn(`unknown field '${k}' (ignored)`, [k]);
  }
  const what = readWhatRuns(r, v);
  const name = readName(r, v, what);
  const groups = readGroups(r, v, defaults);
  const paramsField = v.params !== undefined ? 'params' : 'parameters';
  if (v.params !== undefined && v.parameters !== undefined) r.warn("has both 'params' and 'parameters'; 'params' is used", ['parameters']);
  const paramsDeclared = v[paramsField] !== undefined;
  const params = parseParams(r, v[paramsField], [paramsField]);
  const f = readFields(r, v, defaults);
  const sandbox = v.sandbox !== undefined && v.sandbox !== null ? readSandbox(r, v.sandbox, dir) : defaults.sandbox;
  checkJsSandbox(r, what, sandbox, v.sandbox !== undefined && v.sandbox !== null);
  if (sandbox !== undefined && sandbox !== false && process.platform === 'darwin') {
    r.warn("asks for a sandbox, which needs Linux (bubblewrap): on macOS this tool refuses to run; set 'sandbox: false' to run it unsandboxed", ['sandbox']);
  }
  const command = what.kind === 'exec' ? what.body : what.kind === 'curl' && what.body ? curlCommand(what.body, f.stdin) : undefined;
  checkTemplates(r, what, command, f.transform, params, paramsDeclared);
  checkFnFields(r, what, f.python, paramsDeclared);
  if (r.errors > 0 || !what.kind || name === undefined) return { diagnostics: r.diagnostics };

  // Built field by field: spreading a dozen optional fields into a fresh
  // object for each of thousands of tools was a visible part of a load.
  const base: ToolBase = { key: '', name, description: f.description, groups, params, env: f.env, envPassthrough: f.envPassthrough, limits: f.limits, stdin: f.stdin, source: { file, line: raw.line }, catalogDir: dir };
  const envFileAt = f.envFile !== undefined ? resolvePath(dir, f.envFile) : defaults.envFile;
  if (f.example !== undefined) base.example = f.example;
  if (envFileAt) base.envFile = envFileAt;
  if (f.cwd !== undefined) base.cwd = resolvePath(dir, f.cwd);
  if (f.cacheTtl) base.cacheTtl = f.cacheTtl;
  if (f.transform !== undefined) base.transform = f.transform;
  if (f.pty !== undefined) base.pty = f.pty;
  if (f.returns !== undefined) base.returns = f.returns;
  if (f.annotations) base.annotations = f.annotations;
  if (sandbox !== undefined) base.sandbox = sandbox;
  return { ...(buildTool(base, what, command, f.python, dir, paramsDeclared) ?? {}), diagnostics: r.diagnostics };
}

/** Which of exec, curl or fn the tool has, its text, and a fn tool's target. */
interface WhatRuns {
  kind: (typeof KINDS)[number] | undefined;
  body: string | undefined;
  fnTarget: ReturnType<typeof parseFnTarget> | undefined;
}

function readWhatRuns(r: Reporter, v: Record<string, unknown>): WhatRuns {
  const kinds = KINDS.filter((k) => v[k] !== undefined);
  if (kinds.length === 0) r.error('needs exactly one of exec, curl or fn');
  if (kinds.length > 1) r.error(`has ${kinds.join(' and ')}; a tool takes exactly one of exec, curl or fn`, [kinds[1] ?? '']);
  const kind = kinds.length === 1 ? kinds[0] : undefined;
  const body = kind ? readString(r, v[kind], [kind]) : undefined;
  if (kind && body !== undefined && body.trim() === '') r.error(`'${kind}' is empty`, [kind]);
  if (kind && v[kind] === null) r.error(`'${kind}' is empty`, [kind]);
  const fnTarget = kind === 'fn' && body ? parseFnTarget(body) : undefined;
  if (typeof fnTarget === 'string') r.error(fnTarget, ['fn']);
  return { kind, body, fnTarget };
}

function readName(r: Reporter, v: Record<string, unknown>, { kind, fnTarget }: WhatRuns): string | undefined {
  let name = readString(r, v.name, ['name']);
  if (name === undefined && kind && kind !== 'fn' && v.name === undefined) r.error(`${kind} tool has no 'name'`);
  if (name === undefined && fnTarget && typeof fnTarget !== 'string') name = fnTarget.callableName;
  if (name !== undefined) {
    const problem = toolNameProblem(name, 'tool name');
    if (problem) r.error(problem, ['name']);
  }
  return name;
}

function readGroups(r: Reporter, v: Record<string, unknown>, defaults: FileDefaults): string[] {
  const groupsField = v.groups !== undefined ? 'groups' : 'group';
  if (v.groups !== undefined && v.group !== undefined) r.warn("has both 'groups' and 'group'; 'groups' is used", ['group']);
  const groups = dedupe(readStringList(r, v[groupsField], [groupsField]) ?? defaults.groups);
  for (const g of groups) {
    const problem = toolNameProblem(g, 'group');
    if (problem) r.error(problem, [groupsField]);
  }
  return groups;
}

/** The fields every kind of tool may have. */
function readFields(r: Reporter, v: Record<string, unknown>, defaults: FileDefaults) {
  return {
    stdin: readBool(r, v.stdin, ['stdin']) ?? false,
    envPassthrough: readPassthrough(r, v.env_passthrough, ['env_passthrough']) ?? false,
    pty: readBool(r, v.pty, ['pty']),
    cwd: readString(r, v.cwd, ['cwd']),
    envFile: readString(r, v.env_file, ['env_file']),
    env: { ...defaults.env, ...(readEnvMap(r, v.env, ['env']) ?? {}) },
    limits: readLimits(r, v),
    transform: readTransform(r, v.transform),
    cacheTtl: readPositive(r, v.cache_ttl, ['cache_ttl'], true),
    returns: readReturns(r, v),
    annotations: readAnnotations(r, v.annotations),
    python: readString(r, v.python, ['python']),
    description: readText(r, v.description, ['description']) ?? '',
    example: readText(r, v.example, ['example']),
  };
}

/** The command and transform templates: valid, their variables declared, their outputs quoted. */
function checkTemplates(r: Reporter, { kind, body }: WhatRuns, command: string | undefined, transform: string | undefined, params: ParamSpec[], paramsDeclared: boolean): void {
  for (const [field, text] of [[kind ?? 'exec', command], ['transform', transform]] as const) {
    if (text === undefined) continue;
    const problem = checkTemplate(text);
    if (problem) {
      r.error(`'${field}' is not a valid template: ${problem}`, [field]);
      continue;
    }
    const quotedByShorthand = field === 'curl' && body !== undefined && curlQuotesUrl(body);
    if (quotedByShorthand && /\|\s*quote\b/.test(body)) {
      r.warn("'curl' quotes the whole URL itself, so '| quote' inside it puts quote characters into the URL; use '| urlencode' for URL parts", ['curl']);
    }
    if (paramsDeclared) {
      for (const name of templateVariables(text).filter((n) => !params.some((p) => p.name === n))) {
        r.warn(`'${field}' uses {{ ${name} }}, which is not a parameter of this tool: every call would fail`, [field]);
      }
    }
    for (const p of quotedByShorthand ? [] : unquotedParams(text, params)) {
      r.warn(`'${field}' outputs {{ ${p} }} without '| quote'; a value with spaces or shell characters will break or inject (quoting is the catalog author's job)`, [field]);
    }
  }
}

function checkFnFields(r: Reporter, { kind, fnTarget }: WhatRuns, python: string | undefined, paramsDeclared: boolean): void {
  const isPythonFn = typeof fnTarget === 'object' && fnTarget.language === 'python';
  // MCC refuses an interpreter on a tool that runs none; so do we, naming the tool (r.subject).
  if (python !== undefined && !isPythonFn) r.error(`has 'python', which only a Python fn tool takes (this is ${kindLabel(kind, fnTarget)})`, ['python']);
  if (typeof fnTarget === 'object' && fnTarget.language === 'js' && !paramsDeclared) {
    r.error("JavaScript fn tools must declare 'params' (JavaScript has no runtime types; use 'params: []' for none)", ['fn']);
  }
}

/**
 * JavaScript fn tools run as worker threads of the server itself, so no OS
 * sandbox can hold them: one that asks for a sandbox does not load.
 */
function checkJsSandbox(r: Reporter, { fnTarget }: WhatRuns, sandbox: SandboxSetting | undefined, ownField: boolean): void {
  if (sandbox === undefined || sandbox === false) return;
  if (typeof fnTarget !== 'object' || fnTarget.language !== 'js') return;
  const from = ownField ? "'sandbox'" : "the file's 'sandbox'";
  r.error(`asks for a sandbox (${from}), but JavaScript fn tools run as worker threads inside the server and cannot be sandboxed; use a Python or exec tool, or set 'sandbox: false' on this tool`, ownField ? ['sandbox'] : ['fn']);
}

function buildTool(base: ToolBase, { fnTarget, body }: WhatRuns, command: string | undefined, python: string | undefined, dir: string, paramsDeclared: boolean): { tool: ToolDef } | undefined {
  if (command !== undefined) return { tool: Object.assign(base, { kind: 'exec' as const, command }) };
  if (typeof fnTarget !== 'object' || body === undefined) return undefined;
  const tool: FnTool =
    fnTarget.language === 'js'
      ? Object.assign(base, { kind: 'fn' as const, language: 'js' as const, target: body, modulePath: resolvePath(dir, fnTarget.modulePath), exportName: fnTarget.exportName, takesContext: true, paramsDeclared })
      : Object.assign(base, { kind: 'fn' as const, language: 'python' as const, target: body, python: python ?? 'python3', takesContext: false, paramsDeclared });
  return { tool };
}

/** `returns`, or MCC's name for it, `return_type`. */
function readReturns(r: Reporter, v: Record<string, unknown>): string | undefined {
  if (v.returns !== undefined && v.return_type !== undefined) r.warn("has both 'returns' and 'return_type' (MCC's name); 'returns' is used", ['return_type']);
  const field = v.returns !== undefined ? 'returns' : 'return_type';
  return readString(r, v[field], [field]);
}

function readAnnotations(r: Reporter, raw: unknown): ToolAnnotations | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    r.error(`'annotations' must be a mapping (title, ${ANNOTATION_HINTS.join(', ')}), got ${describeValue(raw)}`, ['annotations']);
    return undefined;
  }
  const out: ToolAnnotations = {};
  for (const k of Object.keys(raw)) {
    if (k !== 'title' && !(ANNOTATION_HINTS as readonly string[]).includes(k)) r.warn(`unknown annotation '${k}' (ignored); known: title, ${ANNOTATION_HINTS.join(', ')}`, ['annotations', k]);
  }
  const title = readString(r, raw.title, ['annotations', 'title']);
  if (title !== undefined) out.title = title;
  for (const k of ANNOTATION_HINTS) {
    const b = readBool(r, raw[k], ['annotations', k]);
    if (b !== undefined) out[k] = b;
  }
  return out;
}

function kindLabel(kind: string | undefined, fnTarget: unknown): string {
  if (kind === 'fn') return typeof fnTarget === 'object' && fnTarget !== null ? 'a JavaScript fn tool' : 'an fn tool';
  return kind ? `an ${kind} tool` : 'a tool without exec, curl or fn';
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

function readLimits(r: Reporter, v: Record<string, unknown>): Limits {
  const limits: Limits = {};
  const raw = v.limits;
  if (raw !== undefined && raw !== null) {
    if (!isPlainObject(raw)) {
      r.error(`'limits' must be a mapping (${LIMIT_FIELDS.join(', ')}), got ${describeValue(raw)}`, ['limits']);
    } else {
      for (const k of Object.keys(raw)) {
        if (!(LIMIT_FIELDS as readonly string[]).includes(k)) {
          r.warn(`unknown limit '${k}' (ignored); known: ${LIMIT_FIELDS.join(', ')}`, ['limits', k]);
        }
      }
      for (const k of LIMIT_FIELDS) {
        const n = readPositive(r, raw[k], ['limits', k]);
        if (n !== undefined) limits[k] = n;
      }
    }
  }
  const timeout = readPositive(r, v.timeout, ['timeout']);
  if (timeout !== undefined) {
    if (limits.timeout !== undefined && limits.timeout !== timeout) {
      r.warn(`'timeout' (${timeout}) and 'limits.timeout' (${limits.timeout}) differ; 'timeout' is used`, ['timeout']);
    }
    limits.timeout = timeout;
  }
  return limits;
}

function readTransform(r: Reporter, raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : raw;
  const list = readStringList(r, raw, ['transform']);
  if (!list || list.length === 0) return undefined;
  return list.join(' | ');
}
