// Completes the fn tools of one catalog load. Python tools are introspected
// in one runner process per interpreter and environment (name, docstring,
// params, return type, whether they take `context`); JavaScript tools are
// checked in a throwaway worker (the module loads and has the export). Both
// import the tool's module with the tool's own environment (runner/env.ts,
// without a session store), never the server's. A tool that cannot be
// completed is left out with a diagnostic naming its catalog file and line
// (for an import error: the module and the exception's last line; the
// traceback goes to the log, scrubbed of the server's secrets); the others load.
import { statSync } from 'node:fs';
import type { FnResolver } from '../catalog/fn-resolver';
import type { CatalogDiagnostic, FnTool, ParamSpec, ParamType } from '../catalog/types';
import { silentLogger, type Logger } from '../host';
import { WorkerPool } from './js/worker-pool';
import { introspectBatch, type Introspected, type IntrospectedParam, type IntrospectTarget } from './python/introspect';
import { missingInterpreterMessage, resolveInterpreter } from './python/interpreter';
import { pythonToolEnv, toolFolder } from './fn-env';
import { buildToolEnv, serverEnv, type ServerEnv } from '../runner/env';
import { lastLine } from '../runner/outcome-text';
import { ToolInputError } from '../tool-run/errors';
import { scrubSecrets, type ServerSecrets } from '../secrets';
import { Sandbox } from '../sandbox/sandbox';
import { profileKey } from '../sandbox/profile';
import { pythonSandboxReads } from './python/python-call';

export interface FnToolResolverOptions {
  /** The server's environment: PATH for finding interpreters, the base of each tool's environment (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The server's secrets: kept out of the tools' environments and out of the log (default: MCC_TOKEN). */
  secrets?: ServerSecrets;
  logger?: Logger;
  /** Limit of one introspection batch (default 60 s). */
  introspectTimeoutSec?: number;
  /** Load each JavaScript module in a worker to check its export (default true). */
  checkJsExports?: boolean;
  /** Who runs sandboxed: a sandboxed Python tool's module is imported inside its sandbox too. */
  sandbox?: Sandbox;
}

const PARAM_TYPES = new Set<ParamType>(['str', 'int', 'float', 'bool', 'list', 'dict']);
const JS_PROBE_TIMEOUT_MS = 10_000;

type Outcome = { tool: FnTool } | { error: string } | undefined;

export class FnToolResolver implements FnResolver {
  private readonly server: ServerEnv;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly checkJs: boolean;
  private readonly sandbox: Sandbox;

  constructor(opts: FnToolResolverOptions = {}) {
    this.server = serverEnv(opts.baseEnv, opts.secrets);
    this.logger = opts.logger ?? silentLogger;
    this.timeoutMs = (opts.introspectTimeoutSec ?? 60) * 1000;
    this.checkJs = opts.checkJsExports ?? true;
    this.sandbox = opts.sandbox ?? new Sandbox({ hidden: this.server.secrets.files ?? [] });
  }

  async resolve(tools: FnTool[]): Promise<{ tools: FnTool[]; diagnostics: CatalogDiagnostic[] }> {
    const outcomes = new Map<FnTool, Outcome>();
    const warnings: CatalogDiagnostic[] = [];
    await Promise.all([
      this.resolveJs(tools.filter((t) => t.language === 'js'), outcomes, warnings),
      this.resolvePython(tools.filter((t) => t.language === 'python'), outcomes, warnings),
    ]);
    const resolved: FnTool[] = [];
    const diagnostics: CatalogDiagnostic[] = [];
    for (const t of tools) {
      const o = outcomes.get(t);
      if (o && 'tool' in o) resolved.push(o.tool);
      else diagnostics.push(diag(t, 'error', o?.error ?? 'was not resolved'));
    }
    return { tools: resolved, diagnostics: [...diagnostics, ...warnings] };
  }

  private async resolveJs(tools: FnTool[], outcomes: Map<FnTool, Outcome>, warnings: CatalogDiagnostic[]): Promise<void> {
    if (tools.length === 0) return;
    const pool = this.checkJs ? new WorkerPool(1) : undefined;
    try {
      for (const t of tools) outcomes.set(t, await this.checkJsTool(t, pool, warnings));
    } finally {
      await pool?.dispose();
    }
  }

  private async checkJsTool(t: FnTool, pool: WorkerPool | undefined, warnings: CatalogDiagnostic[]): Promise<Outcome> {
    const file = t.modulePath ?? '';
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return { error: `JavaScript module ${file} does not exist` };
    }
    if (!pool) return { tool: t };
    let env: Record<string, string>;
    try {
      env = this.importEnv(t, warnings);
    } catch (e) {
      return { error: (e as Error).message };
    }
    const r = await pool.run({ type: 'probe', modulePath: file, exportName: t.exportName ?? '', mtimeMs, env }, { timeoutMs: JS_PROBE_TIMEOUT_MS });
    switch (r.kind) {
      case 'ok':
        return { tool: t };
      case 'threw':
        return { error: `cannot load '${t.target}': ${r.stack || r.message}` };
      case 'timeout':
        return { error: `loading ${file} took longer than ${JS_PROBE_TIMEOUT_MS / 1000}s` };
      case 'crashed':
        return { error: `loading ${file} crashed its worker: ${r.message}` };
      case 'cancelled':
        return { error: `loading ${file} was cancelled` };
    }
  }

  private async resolvePython(tools: FnTool[], outcomes: Map<FnTool, Outcome>, warnings: CatalogDiagnostic[]): Promise<void> {
    // One runner per interpreter and environment: a module imported once
    // must have seen the environment of every tool it serves.
    const groups = new Map<string, { interpreter: string; env: Record<string, string>; tools: FnTool[] }>();
    for (const t of tools) {
      const wanted = t.python ?? 'python3';
      const interpreter = resolveInterpreter(wanted, t.catalogDir, this.server.vars);
      if (!interpreter) {
        outcomes.set(t, { error: missingInterpreterMessage(wanted, this.server.vars) });
        continue;
      }
      let env: Record<string, string>;
      try {
        env = this.importEnv(t, warnings);
      } catch (e) {
        outcomes.set(t, { error: (e as Error).message });
        continue;
      }
      // Tools of one runner share its sandbox too: an import runs the module's code.
      const key = JSON.stringify([interpreter, Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1)), profileKey(this.sandbox.profileOf(t))]);
      const group = groups.get(key) ?? { interpreter, env, tools: [] };
      group.tools.push(t);
      groups.set(key, group);
    }
    await Promise.all([...groups.values()].map((g) => this.introspectGroup(g.interpreter, g.env, g.tools, outcomes, warnings)));
  }

  /**
   * The environment a tool's module is loaded with: the tool's own, without
   * a store. An env_file that cannot be read now is left out with a warning
   * (it is read again at every call), rather than leaving the tool out.
   */
  private importEnv(t: FnTool, warnings: CatalogDiagnostic[]): Record<string, string> {
    const build = (tool: FnTool): Record<string, string> =>
      (tool.language === 'python' ? pythonToolEnv(tool, undefined, this.server) : buildToolEnv(tool, undefined, this.server)).env;
    try {
      return build(t);
    } catch (e) {
      if (!(e instanceof ToolInputError) || !t.envFile) throw e;
      warnings.push(diag(t, 'warning', `${e.message}; the module was loaded without it, and calls fail until it can be read`));
      return build({ ...t, envFile: undefined });
    }
  }

  private async introspectGroup(
    interpreter: string,
    env: Record<string, string>,
    tools: FnTool[],
    outcomes: Map<FnTool, Outcome>,
    warnings: CatalogDiagnostic[],
  ): Promise<void> {
    const targets: IntrospectTarget[] = tools.map((t, i) => {
      const dir = toolFolder(t);
      return { id: String(i), target: t.target, path: [dir], cwd: dir };
    });
    const scrub = (text: string): string => scrubSecrets(text, this.server.secrets);
    let answers: Map<string, Introspected>;
    try {
      const cwd = toolFolder(tools[0]);
      const boxed = this.sandbox.prepare(tools[0], { env, cwd, extraRead: pythonSandboxReads(interpreter) });
      answers = await introspectBatch(interpreter, targets, boxed?.env ?? env, cwd, this.timeoutMs, boxed?.wrap);
    } catch (e) {
      const message = scrub(e instanceof Error ? e.message : String(e));
      this.logger.warn(`Python introspection with ${interpreter} failed: ${message}`);
      for (const t of tools) outcomes.set(t, { error: `cannot introspect '${t.target}': ${lastLine(message) ?? message}` });
      return;
    }
    tools.forEach((t, i) => {
      const a = answers.get(String(i));
      if (!a) outcomes.set(t, { error: `the Python runner gave no answer for '${t.target}'` });
      else if (!a.ok) {
        const module = a.module ? `module '${a.module}'` : `'${t.target}'`;
        const why = scrub(lastLine(a.traceback) ?? lastLine(a.error) ?? a.error);
        this.logger.warn(`${t.source.file}:${t.source.line}: importing '${t.target}' with ${interpreter} failed:\n${scrub(a.traceback.trimEnd() || a.error)}`);
        outcomes.set(t, { error: `cannot import ${module} for '${t.target}' (${interpreter}): ${why}` });
      } else {
        outcomes.set(t, { tool: completed(t, interpreter, a) });
        if (t.paramsDeclared) warnings.push(...declaredParamWarnings(t, a.params));
      }
    });
  }
}

function completed(t: FnTool, interpreter: string, a: Extract<Introspected, { ok: true }>): FnTool {
  const returns = t.returns ?? a.returns ?? undefined;
  return {
    ...t,
    python: interpreter,
    name: t.name || a.name,
    description: t.description || a.doc,
    params: t.paramsDeclared ? t.params : a.params.map(toParamSpec),
    takesContext: a.takesContext,
    ...(returns !== undefined ? { returns } : {}),
  };
}

function toParamSpec(p: IntrospectedParam): ParamSpec {
  const type = PARAM_TYPES.has(p.type as ParamType) ? (p.type as ParamType) : 'str';
  const hasDefault = 'default' in p;
  // A default Python alone can hold (an object) is left to Python: optional, not injected.
  const required = p.required && p.defaultRepr === undefined;
  return { name: p.name, type, required, hasDefault, ...(hasDefault ? { default: p.default } : {}), hasOverride: false };
}

// YAML params win; say so when they disagree with the function.
function declaredParamWarnings(t: FnTool, actual: IntrospectedParam[]): CatalogDiagnostic[] {
  const out: CatalogDiagnostic[] = [];
  const declared = new Set(t.params.map((p) => p.name));
  for (const p of actual) {
    if (p.required && !declared.has(p.name)) {
      out.push(diag(t, 'warning', `'${t.target}' requires argument '${p.name}', which 'params' does not declare; calls will fail`));
    }
  }
  return out;
}

function diag(t: FnTool, severity: 'error' | 'warning', message: string): CatalogDiagnostic {
  return {
    severity,
    file: t.source.file,
    line: t.source.line,
    ...(t.source.column !== undefined ? { column: t.source.column } : {}),
    message: `tool '${t.name}': ${message}`,
  };
}
