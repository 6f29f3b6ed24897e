// The system part of every sandbox: what /bin/sh, coreutils, Python and
// curl need to start, read-only. /usr and the /bin, /lib* links (or
// folders, on systems without a merged /usr), and a short list of /etc:
// names (passwd, group), the loader's cache, Debian's /etc/alternatives
// (through which awk and friends resolve), and with network, DNS and TLS roots.
import { lstatSync, readlinkSync } from 'node:fs';

const ROOT_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
// Every mount costs time on every run, so the list is short, and what only
// a networked tool needs (names, ports, TLS roots) is there only with network.
const ETC = ['/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/etc/localtime', '/etc/ld.so.cache', '/etc/alternatives'];
const ETC_NETWORK = ['/etc/hosts', '/etc/host.conf', '/etc/resolv.conf', '/etc/gai.conf', '/etc/services', '/etc/protocols', '/etc/ssl', '/etc/ca-certificates', '/etc/pki'];

/** One mount of a sandbox: where it shows, and its bwrap arguments. */
export interface Mount {
  dest: string;
  args: string[];
  /** True when it shows a host path (a secret file under it must be covered). */
  shows: boolean;
}

const cached = new Map<boolean, Mount[]>();

/** The system mounts, and the fresh /proc, /dev and /tmp of every sandbox (read once per process). */
export function systemMounts(network: boolean): readonly Mount[] {
  const hit = cached.get(network);
  if (hit) return hit;
  const out: Mount[] = [];
  for (const dir of ROOT_DIRS) {
    const kind = kindOf(dir);
    if (kind === 'link') out.push({ dest: dir, args: ['--symlink', readlinkSync(dir), dir], shows: false });
    else if (kind === 'dir') out.push({ dest: dir, args: ['--ro-bind', dir, dir], shows: true });
  }
  for (const f of network ? [...ETC, ...ETC_NETWORK] : ETC) {
    if (kindOf(f) !== undefined) out.push({ dest: f, args: ['--ro-bind-try', f, f], shows: true });
  }
  out.push({ dest: '/proc', args: ['--proc', '/proc'], shows: false });
  out.push({ dest: '/dev', args: ['--dev', '/dev'], shows: false });
  out.push({ dest: '/tmp', args: ['--tmpfs', '/tmp'], shows: false });
  cached.set(network, out);
  return out;
}

function kindOf(path: string): 'link' | 'dir' | 'other' | undefined {
  try {
    const s = lstatSync(path);
    return s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return undefined;
  }
}
