// Reading a pty to its end. When the last process holding a pty's terminal
// exits, the master reports a hangup; Node 20's libuv (1.46) then takes a
// short read as the end of the stream and stops reading (libuv issue 4992),
// although more of what the tool wrote is still in the pty: a fast tool that
// prints more than 4 KiB loses its tail (about one run in ten on a loaded
// 2-core machine; node-pty issues 72, 85 and 726). So the tool runs under a
// small shell that, once the tool has ended, prints a random end token and
// keeps the terminal open until it reads that token back: everything before
// the token has then been read (token-scanner.ts finds it), and only then
// does the terminal close. The token is never shown.
import { randomBytes } from 'node:crypto';

// $1: the token; the rest: the tool's own /bin/sh argv. Leftover EOFs (the
// ^D every run starts with) make `read` fail at once, so a bounded loop
// waits for the token's line; a hangup (the server gone) ends it too. A
// tool that died of a signal which ends a process is reported as that
// death (the shell only sees 128+N), as it is without the drain script.
const DRAIN_SCRIPT = [
  't=$1; shift',
  // The tool keeps the terminal as its stderr; this shell's own notes ("Killed") go nowhere.
  'exec 3>&2 2>/dev/null',
  '(exec /bin/sh "$@" 2>&3 3>&-); s=$?',
  'printf %s "$t"',
  'n=0; while [ $n -lt 64 ]; do IFS= read -r l && [ "$l" = "$t" ] && break; n=$((n+1)); done',
  'if [ $s -gt 128 ]; then',
  '  case $(kill -l $s 2>/dev/null) in',
  '    HUP|INT|QUIT|ILL|TRAP|ABRT|BUS|FPE|KILL|USR1|SEGV|USR2|PIPE|ALRM|TERM|XCPU|XFSZ|VTALRM|PROF|SYS)',
  '      trap - "$(kill -l $s)"; kill -s "$(kill -l $s)" $$ ;;',
  '  esac',
  'fi',
  'exit $s',
].join('\n');

/** The argv of /bin/sh in a pty: the tool's argv under the drain script. */
export function drainedShellArgs(token: string, toolArgs: readonly string[]): string[] {
  return ['-c', DRAIN_SCRIPT, 'mcc-pty', token, ...toolArgs];
}

export function newEndToken(): string {
  return `mcc-end-${randomBytes(16).toString('hex')}`;
}
