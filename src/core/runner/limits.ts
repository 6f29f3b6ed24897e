// Unix resource limits for a tool, set inside the child: /bin/sh runs
// `ulimit` and then execs a second /bin/sh with the rendered command. The
// same argv works for pty and pipe mode, and our own process is never
// limited. Also: what a death under those limits means, in words.
//
// What a memory hog does under mem_mb (RLIMIT_AS, checked on this project's
// Linux machines): nothing kills it. Its allocations fail, and the program
// decides: dash says "Out of space" and exits 2, Python raises MemoryError
// and exits 1, C code that ignores a NULL from malloc dies of SIGSEGV, and
// C++/V8 abort (SIGABRT/SIGTRAP). So both outcomes are explained: a failed
// exit whose output mentions memory, and a death by one of those signals.
import { constants } from 'node:os';
import type { Limits } from '../catalog/types';
import { ToolInputError } from '../tool-run/errors';

const SIG = constants.signals;

type UlimitField = 'mem_mb' | 'cpu_sec' | 'fsize_mb' | 'nofile';

/** The argv for /bin/sh that applies the limits, then runs `command`. */
export function limitedShellArgs(limits: Limits, command: string): string[] {
  const steps: string[] = [];
  const add = (field: UlimitField, shell: string): void => {
    steps.push(`${shell} || { echo 'mcc: cannot set limit ${field}=${String(limits[field])}' >&2; exit 126; }`);
  };
  if (limits.mem_mb !== undefined) add('mem_mb', `ulimit -v ${positive(limits, 'mem_mb') * 1024}`);
  if (limits.cpu_sec !== undefined) {
    // Soft limit N sends SIGXCPU; the hard limit (one second later) SIGKILLs
    // a program that ignores it. Equal limits would SIGKILL straight away.
    const n = positive(limits, 'cpu_sec');
    add('cpu_sec', `ulimit -t ${n + 1} && ulimit -S -t ${n}`);
  }
  // POSIX sh counts -f in 512-byte blocks.
  if (limits.fsize_mb !== undefined) add('fsize_mb', `ulimit -f ${positive(limits, 'fsize_mb') * 2048}`);
  if (limits.nofile !== undefined) add('nofile', `ulimit -n ${positive(limits, 'nofile')}`);
  if (steps.length === 0) return ['-c', command];
  return ['-c', `${steps.join('\n')}\nexec /bin/sh -c "$1"`, 'mcc-limits', command];
}

function positive(limits: Limits, field: UlimitField): number {
  const v = limits[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ToolInputError(`limits.${field} must be a positive number, got ${JSON.stringify(v)}`);
  }
  return Math.ceil(v);
}

export function hasUnixLimits(limits: Limits): boolean {
  return ['mem_mb', 'cpu_sec', 'fsize_mb', 'nofile'].some((k) => limits[k as UlimitField] !== undefined);
}

export function signalName(signal: number): string {
  const entry = Object.entries(SIG).find(([, n]) => n === signal);
  return entry ? entry[0] : `signal ${signal}`;
}

const MEMORY_SIGNALS = [SIG.SIGSEGV, SIG.SIGABRT, SIG.SIGBUS, SIG.SIGTRAP];

/**
 * The shell reports a child killed by signal n as exit code 128+n. With a
 * limit that explains that signal, read it as the death it was.
 */
export function signalFromShellCode(code: number, limits: Limits): number | undefined {
  if (code <= 128 || code > 128 + 64) return undefined;
  const sig = code - 128;
  if (sig === SIG.SIGXCPU && limits.cpu_sec !== undefined) return sig;
  if (sig === SIG.SIGXFSZ && limits.fsize_mb !== undefined) return sig;
  if (sig === SIG.SIGKILL && (limits.cpu_sec !== undefined || limits.mem_mb !== undefined)) return sig;
  if (MEMORY_SIGNALS.includes(sig) && limits.mem_mb !== undefined) return sig;
  return undefined;
}

function limitsText(limits: Limits): string {
  return `[limits: ${JSON.stringify(limits)}]`;
}

/** The stderr note for a death by signal. */
export function signalNote(signal: number, limits: Limits): string {
  const name = signalName(signal);
  if (!hasUnixLimits(limits)) return `killed by signal ${name}`;
  if (signal === SIG.SIGXCPU) return `resource limit hit: cpu time exceeded (${name}) ${limitsText(limits)}`;
  if (signal === SIG.SIGXFSZ) return `resource limit hit: file size exceeded (${name}) ${limitsText(limits)}`;
  if (signal === SIG.SIGKILL) return `resource limit hit: killed (${name}) ${limitsText(limits)}`;
  if (limits.mem_mb !== undefined && MEMORY_SIGNALS.includes(signal)) {
    return (
      `resource limit hit: memory (address space) exhausted, the program died of ${name} ` +
      `after an allocation failed under mem_mb=${limits.mem_mb} ${limitsText(limits)}`
    );
  }
  return `killed by signal ${name}`;
}

const MEMORY_WORDS = /out of (space|memory)|memoryerror|cannot allocate|bad_alloc|allocation failed|enomem|memory exhausted/i;

/** A failed exit under mem_mb whose output says memory ran out: say so. */
export function memoryExitNote(code: number, output: string, limits: Limits): string | undefined {
  if (code === 0 || limits.mem_mb === undefined || !MEMORY_WORDS.test(output)) return undefined;
  return (
    `resource limit hit: memory (address space) exhausted: an allocation failed under ` +
    `mem_mb=${limits.mem_mb} and the program exited with code ${code} ${limitsText(limits)}`
  );
}

/** The outcome code of a finished shell (negative for a signal), and what to say about it. */
export function explainExit(child: { code: number | null; signal: number | null }, limits: Limits, output: string): { code: number; note: string } {
  if (child.signal !== null) return { code: -child.signal, note: signalNote(child.signal, limits) };
  const code = child.code ?? -1;
  const sig = signalFromShellCode(code, limits);
  if (sig !== undefined) return { code: -sig, note: signalNote(sig, limits) };
  return { code, note: memoryExitNote(code, output, limits) ?? '' };
}
