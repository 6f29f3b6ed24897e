// The one place that puts a command into a sandbox. Exec tools (pipes and
// pty), transforms, curl tools (exec tools once expanded) and Python
// function tools all ask `prepare` and start what `wrap` gives them.
import { constants } from 'node:os';
import { Emitter } from '../host';
import { ToolInputError } from '../tool-run/errors';
import type { ToolBase } from '../catalog/types';
import { bwrapArgs, isVisible, type SandboxRun } from './bwrap-args';
import type { Wrap } from './launch-of';
import { probeSandbox, type ProbeOptions } from './probe';
import { profileOf, sandboxLabel, type SandboxKind, type SandboxProfile, type ServerSandbox } from './profile';

export interface SandboxOptions {
  /** What tools without a `sandbox:` of their own get (default 'off'). */
  server?: ServerSandbox;
  /** Folders the default profile shows read-only besides the catalog file's: the editor's workspace folders. */
  roots?: readonly string[];
  /** Files no sandbox ever shows (the users file), even under a read path. */
  hidden?: readonly string[];
  /** Where bwrap is found (tests: a PATH without it). */
  probe?: ProbeOptions;
}

export type { Launch } from './launch-of';

/** A run set up for its sandbox: the environment to start with, and the wrapper of its command. */
export interface SandboxedStart {
  kind: SandboxKind;
  profile: SandboxProfile;
  env: Record<string, string>;
  /** `file args` as started inside the sandbox: bwrap, its options, `--`, then the command. */
  readonly wrap: Wrap;
}

type Tool = Pick<ToolBase, 'key' | 'sandbox' | 'catalogDir'>;

const CTX_FILE = 'MCC_CTX_FILE';

export class Sandbox {
  readonly server: ServerSandbox;
  private readonly hidden: readonly string[];
  private readonly refused = new Emitter<string>();
  /** Fires with the tool's key when a run is refused because its sandbox cannot be made (metrics). */
  readonly onDidRefuse = this.refused.event;

  constructor(private readonly opts: SandboxOptions = {}) {
    this.server = opts.server ?? 'off';
    this.hidden = opts.hidden ?? [];
  }

  profileOf(tool: Tool): SandboxProfile | undefined {
    return profileOf(tool, this.server, this.opts.roots);
  }

  label(tool: Tool): 'off' | SandboxKind {
    return sandboxLabel(tool, this.server);
  }

  /**
   * The run in the tool's sandbox, or undefined when it has none. Throws a
   * ToolInputError, before anything starts, when it wants one that cannot
   * be made here: it never runs unsandboxed instead.
   */
  prepare(tool: Tool, run: { env: Record<string, string>; cwd?: string; extraRead?: readonly string[] }): SandboxedStart | undefined {
    const profile = this.profileOf(tool);
    if (!profile) return undefined;
    const support = probeSandbox(this.opts.probe);
    if (!support.ok) throw this.refusal(tool.key, `'${tool.key}' runs only in a sandbox (sandbox=${profile.kind}), and none can be made: ${support.reason}`);
    const env = { ...run.env };
    // The host's temporary folder is not there; the sandbox's own /tmp is.
    if (env.TMPDIR !== undefined) env.TMPDIR = '/tmp';
    const extraRead = [...(run.extraRead ?? [])];
    if (env[CTX_FILE] !== undefined) extraRead.push(env[CTX_FILE]);
    const spec: SandboxRun = { profile, hidden: this.hidden, extraRead, ...(run.cwd !== undefined ? { cwd: run.cwd } : {}) };
    if (run.cwd !== undefined && !isVisible(spec, run.cwd)) {
      throw this.refusal(tool.key, `cwd ${run.cwd} is outside the sandbox (sandbox=${profile.kind}); add it to sandbox.filesystem.read or write`);
    }
    const options = bwrapArgs(spec);
    return { kind: profile.kind, profile, env, wrap: (file, args) => ({ file: support.bwrap, args: [...options, '--', file, ...args] }) };
  }

  /** The error that refuses a tool whose sandbox cannot be made; counted (onDidRefuse). */
  refusal(key: string, message: string): ToolInputError {
    this.refused.fire(key);
    return new ToolInputError(message);
  }
}

// Signals whose default action ends a process (as the pty drain script lists them).
const ENDING = ['HUP', 'INT', 'QUIT', 'ILL', 'TRAP', 'ABRT', 'BUS', 'FPE', 'KILL', 'USR1', 'SEGV', 'USR2', 'PIPE', 'ALRM', 'TERM', 'XCPU', 'XFSZ', 'VTALRM', 'PROF', 'SYS'];

/**
 * bwrap reports a command that died of signal N as exit code 128+N; read it
 * as that death, so a sandboxed run reads as the same run without one.
 */
export function sandboxExit<T extends { code: number | null; signal: number | null }>(r: T): T {
  if (r.signal !== null || r.code === null || r.code <= 128) return r;
  const n = r.code - 128;
  const name = Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
  return name && ENDING.includes(name.slice(3)) ? { ...r, code: null, signal: n } : r;
}
