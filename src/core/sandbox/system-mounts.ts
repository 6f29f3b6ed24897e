// The system part of every sandbox: what /bin/sh, coreutils, Python and
// curl need to start, read-only. /usr and the /bin, /lib* links (or
// folders, on systems without a merged /usr), and a short list of /etc:
// names (passwd, group), the loader's cache, DNS and TLS roots, and
// Debian's /etc/alternatives, through which awk and friends resolve.
import { lstatSync, readlinkSync } from 'node:fs';

const ROOT_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const ETC = [
  '/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/etc/hosts', '/etc/host.conf', '/etc/resolv.conf', '/etc/gai.conf',
  '/etc/localtime', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/ssl',
  '/etc/ca-certificates', '/etc/pki', '/etc/protocols', '/etc/services', '/etc/mime.types', '/etc/terminfo',
];

/** One mount of a sandbox: where it shows, and its bwrap arguments. */
export interface Mount {
  dest: string;
  args: string[];
  /** True when it shows a host path (a secret file under it must be covered). */
  shows: boolean;
}

let cached: Mount[] | undefined;

/** The system mounts, and the fresh /proc, /dev and /tmp of every sandbox (read once per process). */
export function systemMounts(): readonly Mount[] {
  if (cached) return cached;
  const out: Mount[] = [];
  for (const dir of ROOT_DIRS) {
    const kind = kindOf(dir);
    if (kind === 'link') out.push({ dest: dir, args: ['--symlink', readlinkSync(dir), dir], shows: false });
    else if (kind === 'dir') out.push({ dest: dir, args: ['--ro-bind', dir, dir], shows: true });
  }
  for (const f of ETC) {
    if (kindOf(f) !== undefined) out.push({ dest: f, args: ['--ro-bind-try', f, f], shows: true });
  }
  out.push({ dest: '/proc', args: ['--proc', '/proc'], shows: false });
  out.push({ dest: '/dev', args: ['--dev', '/dev'], shows: false });
  out.push({ dest: '/tmp', args: ['--tmpfs', '/tmp'], shows: false });
  cached = out;
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
