// Whether a sandbox can be made here, found once per bwrap path: the
// platform, bwrap on PATH, and one real run of an empty sandbox (user
// namespaces may be disabled, or a container may forbid them). The answer
// names the cause and the fix; a tool that wants a sandbox never runs
// without one.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { systemMounts } from './system-mounts';

export type SandboxSupport = { ok: true; bwrap: string } | { ok: false; reason: string };

export interface ProbeOptions {
  /** bwrap's path; default: `bwrap` on the PATH given. */
  bwrap?: string;
  /** The PATH searched for bwrap (default: the server's). */
  path?: string;
  platform?: NodeJS.Platform;
}

const cache = new Map<string, SandboxSupport>();

export function probeSandbox(o: ProbeOptions = {}): SandboxSupport {
  const platform = o.platform ?? process.platform;
  const key = `${platform}\0${o.bwrap ?? ''}\0${o.path ?? process.env.PATH ?? ''}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = probeNow(platform, o);
    cache.set(key, hit);
  }
  return hit;
}

function probeNow(platform: NodeJS.Platform, o: ProbeOptions): SandboxSupport {
  if (platform === 'darwin') return { ok: false, reason: 'tool sandboxes need Linux (bubblewrap); macOS has none that MCC can use. Run the server on Linux, or set `sandbox: false` on the tool' };
  if (platform !== 'linux') return { ok: false, reason: `tool sandboxes need Linux (bubblewrap); this is ${platform}. Run the server on Linux (e.g. WSL), or set \`sandbox: false\` on the tool` };
  const bwrap = o.bwrap ?? onPath('bwrap', o.path ?? process.env.PATH ?? '');
  if (!bwrap) return { ok: false, reason: 'bubblewrap (bwrap) is not on the PATH; install it: apt install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)' };
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts'];
  for (const m of systemMounts(false)) args.push(...m.args);
  const r = spawnSync(bwrap, [...args, '--', '/bin/true'], { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin' } });
  if (r.error) return { ok: false, reason: `bubblewrap (${bwrap}) could not be started: ${r.error.message}; install it: apt install bubblewrap` };
  if (r.status === 0) return { ok: true, bwrap };
  const said = (r.stderr || '').trim().split('\n')[0] || `exit code ${String(r.status ?? r.signal)}`;
  return { ok: false, reason: `bubblewrap cannot make a sandbox here (${said}); unprivileged user namespaces are likely disabled: sysctl kernel.unprivileged_userns_clone=1 (Debian), user.max_user_namespaces=15000, or on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0; in a container, allow user namespaces` };
}

function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}
