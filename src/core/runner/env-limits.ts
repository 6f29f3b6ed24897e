// How much environment a subprocess may be given. Linux refuses an exec
// with E2BIG ("Argument list too long") when one argument or environment
// string is longer than MAX_ARG_STRLEN (32 pages: 128 KiB), or when all of
// them together pass a quarter of the stack limit (2 MiB with the usual
// 8 MiB stack; never less than 128 KiB, at most 6 MiB). macOS allows 1 MiB
// for all of them. The session store goes into the environment within the
// budget below, with room to spare for the command, its arguments and the
// server variables a tool passes through.
import { readFileSync } from 'node:fs';

export interface EnvBudget {
  /** All MCC_CTX* strings together (bytes). */
  total: number;
  /** One MCC_CTX_<NAME>=value string (bytes). */
  entry: number;
  /** MCC_CTX=<the whole store as JSON> (bytes); a larger store goes to MCC_CTX_FILE. */
  ctx: number;
  /** MCC_CTX_TOOLS=<the caller's tool keys> (bytes); more keys are left to MCC_CTX / MCC_CTX_FILE. */
  tools: number;
  /** MCC_CTX_OMITTED=<names> (bytes); a longer list is cut and ends with "...". */
  omitted: number;
}

const KIB = 1024;
const MIN_ARG_MAX = 128 * KIB;
const MAX_ARG_MAX = 6 * KIB * KIB;
const MACOS_ARG_MAX = KIB * KIB;

/** The budget every run uses: a quarter of what exec allows, capped at 256 KiB. */
export function envBudget(argMax: number = argMaxBytes()): EnvBudget {
  const total = Math.min(256 * KIB, Math.floor(argMax / 4));
  return {
    total,
    // Well under MAX_ARG_STRLEN (128 KiB), with room for a value at the default 64 KiB value limit.
    entry: Math.min(100 * KIB, total),
    ctx: Math.min(32 * KIB, total),
    tools: Math.min(16 * KIB, total),
    omitted: Math.min(8 * KIB, total),
  };
}

let measured: number | undefined;

/** What exec allows for arguments and environment together, measured once from the stack limit. */
export function argMaxBytes(): number {
  if (measured === undefined) measured = process.platform === 'linux' ? linuxArgMax(readLimits()) : MACOS_ARG_MAX;
  return measured;
}

/** Linux: a quarter of the soft stack limit, within the kernel's floor and ceiling. */
export function linuxArgMax(procLimits: string | undefined): number {
  const m = procLimits ? /^Max stack size\s+(\S+)/m.exec(procLimits) : null;
  if (!m) return 2 * KIB * KIB; // the usual 8 MiB stack
  if (m[1] === 'unlimited') return MAX_ARG_MAX;
  const stack = Number(m[1]);
  if (!Number.isFinite(stack)) return 2 * KIB * KIB;
  return Math.max(MIN_ARG_MAX, Math.min(MAX_ARG_MAX, Math.floor(stack / 4)));
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

/** What one NAME=value string costs: its bytes, its NUL and its pointer. */
export function envEntryBytes(name: string, value: string): number {
  return Buffer.byteLength(name, 'utf8') + 1 + Buffer.byteLength(value, 'utf8') + 1 + 8;
}
