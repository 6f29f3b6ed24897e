// Reading a pty to its end. On Linux, when the last process holding a pty's
// terminal exits, output still in the kernel's buffers can be dropped before
// the master reads it: a fast tool that prints more than 4 KiB and exits
// loses its tail (node-pty issues 72, 85 and 726; about one run in ten on a
// loaded 2-core machine). So the tool runs under a small shell that, once
// the tool has ended, prints a random end token and keeps the terminal open
// until it reads that token back: everything before the token has then been
// read, and only then does the terminal close. The token is never shown.
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

/**
 * Finds the end token in a pty's output as it streams: passes on what comes
 * before it (holding back a tail that may be the token's beginning) and
 * nothing after it.
 */
export class EndTokenScanner {
  private pending = '';
  private seen = false;

  constructor(private readonly token: string) {}

  get found(): boolean {
    return this.seen;
  }

  /** The part of `chunk` that is the tool's output. */
  feed(chunk: string): string {
    if (this.seen) return '';
    const text = this.pending + chunk;
    const at = text.indexOf(this.token);
    if (at >= 0) {
      this.seen = true;
      this.pending = '';
      return text.slice(0, at);
    }
    const keep = this.partialTokenAtEnd(text);
    this.pending = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** What was held back, when the run ended without the token (stopped, killed). */
  flush(): string {
    const rest = this.seen ? '' : this.pending;
    this.pending = '';
    return rest;
  }

  private partialTokenAtEnd(text: string): number {
    for (let k = Math.min(this.token.length - 1, text.length); k > 0; k--) {
      if (this.token.startsWith(text.slice(text.length - k))) return k;
    }
    return 0;
  }
}
