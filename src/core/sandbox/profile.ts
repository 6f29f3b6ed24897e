// Which sandbox a tool runs in: none, the default profile, or its own. The
// tool's `sandbox:` (or its file's) decides; a tool that says nothing takes
// the server's setting (`mcc serve --sandbox default`, `mcc.sandbox`).
import type { SandboxSetting, ToolBase } from '../catalog/types';
import { SANDBOX_TMPDIR } from '../catalog/sandbox-field';

/** 'default': the documented default profile; 'tool': a profile the catalog wrote. */
export type SandboxKind = 'default' | 'tool';

export interface SandboxProfile {
  kind: SandboxKind;
  /** Absolute paths, visible read-only (besides the system folders every sandbox has). */
  read: string[];
  /** Absolute paths, visible and writable; `$TMPDIR` is the private /tmp every sandbox has. */
  write: string[];
  network: boolean;
}

/** What the server decides for tools that say nothing: 'default' sandboxes them all. */
export type ServerSandbox = 'off' | 'default';

type SandboxedTool = Pick<ToolBase, 'sandbox' | 'catalogDir'>;

/**
 * The tool's profile, or undefined when it runs unsandboxed. `roots` are the
 * folders the default profile shows read-only besides the catalog file's
 * (the editor's workspace folders; none headless).
 */
export function profileOf(tool: SandboxedTool, server: ServerSandbox, roots: readonly string[] = []): SandboxProfile | undefined {
  const s: SandboxSetting = tool.sandbox ?? (server === 'default' ? 'default' : false);
  if (s === false) return undefined;
  const read = [...new Set([...roots, tool.catalogDir])];
  if (s === 'default') return { kind: 'default', read, write: [], network: false };
  return { kind: 'tool', read: s.read ?? read, write: s.write ?? [], network: s.network ?? false };
}

/** How views and audit lines name a tool's sandbox: off, default or tool. */
export function sandboxLabel(tool: SandboxedTool, server: ServerSandbox): 'off' | SandboxKind {
  return profileOf(tool, server)?.kind ?? 'off';
}

/** One line for people: the profile's paths and network. */
export function describeProfile(p: SandboxProfile): string {
  const list = (xs: string[]): string => (xs.length ? xs.join(', ') : 'nothing');
  return `sandbox=${p.kind} (read: ${list(p.read)}; write: ${list(p.write)}; network: ${p.network ? 'on' : 'off'})`;
}

/** A stable text of the profile: runs share a warm process only within one profile. */
export function profileKey(p: SandboxProfile | undefined): string {
  return p ? JSON.stringify([p.kind, p.read, p.write, p.network]) : 'none';
}

/** Whether the path means the sandbox's private /tmp rather than a folder of the host. */
export function isPrivateTmp(path: string, hostTmp: string): boolean {
  return path === SANDBOX_TMPDIR || path === '/tmp' || path === hostTmp;
}
