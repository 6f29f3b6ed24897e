// The in-memory form of a loaded tool catalog (see shared/docs/catalog-format.md).

export type ParamType = 'str' | 'int' | 'float' | 'bool' | 'list' | 'dict';

export interface ParamSpec {
  name: string;
  type: ParamType;
  required: boolean;
  /** Present when the YAML gives `default` (hasDefault tells null apart from absent). */
  hasDefault: boolean;
  default?: unknown;
  description?: string;
  example?: unknown;
  /** `override`: always injected, hidden from callers and signatures. */
  hasOverride: boolean;
  override?: unknown;
}

export interface SourceLocation {
  /** Absolute path of the catalog file. */
  file: string;
  /** 1-based line of the tool entry. */
  line: number;
  column?: number;
}

export interface Limits {
  timeout?: number;
  mem_mb?: number;
  cpu_sec?: number;
  fsize_mb?: number;
  nofile?: number;
}

/** MCP tool annotations a catalog may declare (hints, not guarantees). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A tool's own sandbox (`sandbox:` as a mapping), paths absolute. What it
 * leaves out takes the default profile's value (runtime: core/sandbox/).
 */
export interface SandboxSpec {
  /** Visible read-only; absent: the catalog folder. */
  read?: string[];
  /** Visible and writable; `$TMPDIR` names the sandbox's private /tmp. */
  write?: string[];
  network?: boolean;
}

/** `sandbox:` of a tool or file: off, the default profile, or a profile of its own. */
export type SandboxSetting = false | 'default' | SandboxSpec;

export interface ToolBase {
  /** groups joined by '.', public/admin first, then name. */
  key: string;
  name: string;
  description: string;
  example?: string;
  groups: string[];
  /** All params, overrides included; callers see only those without override. */
  params: ParamSpec[];
  /** Merged file-level + tool-level env, after ${VAR} substitution. */
  env: Record<string, string>;
  /** Absolute path of the dotenv file (tool's own or the file-level default). */
  envFile?: string;
  /** false: the floor of the server's environment; a list: the floor and those names; true: all of it (see runner/env.ts). */
  envPassthrough: boolean | string[];
  /** Absolute working directory (relative paths resolved against catalogDir). */
  cwd?: string;
  limits: Limits;
  stdin: boolean;
  cacheTtl?: number;
  /** Transform pipeline, list already joined with ' | '. */
  transform?: string;
  /** Run mode preference: undefined = default (pty). */
  pty?: boolean;
  /** Declared or introspected return type for the signature. */
  returns?: string;
  /** MCP tool annotations for the tool offered as a tool of its own. */
  annotations?: ToolAnnotations;
  /** `sandbox:` (the tool's, else its file's); absent: the server's setting decides. */
  sandbox?: SandboxSetting;
  source: SourceLocation;
  /** Absolute folder of the catalog file the tool came from. */
  catalogDir: string;
}

export interface ExecTool extends ToolBase {
  kind: 'exec';
  /** The command template (curl: already expanded to the curl command). */
  command: string;
}

export interface FnTool extends ToolBase {
  kind: 'fn';
  language: 'python' | 'js';
  /** The `fn:` value as written. */
  target: string;
  /** Python: interpreter name or path as written (default python3). */
  python?: string;
  /** JS: absolute module path and export name. */
  modulePath?: string;
  exportName?: string;
  /** Python: whether the callable declares `context` (introspected). JS: always true. */
  takesContext: boolean;
  /** Whether the YAML declared `params` (else a resolver introspects them). */
  paramsDeclared?: boolean;
}

export type ToolDef = ExecTool | FnTool;

export interface CatalogDiagnostic {
  severity: 'error' | 'warning';
  message: string;
  /** Absolute file path. */
  file: string;
  /** 1-based line. */
  line: number;
  column?: number;
}

export interface Catalog {
  tools: Map<string, ToolDef>;
  diagnostics: CatalogDiagnostic[];
  /** Every catalog file that was read (for watchers). */
  files: string[];
}
