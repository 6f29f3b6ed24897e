// Builds the outcomes of one fn call, all timed from the same start.
import type { RunOutcome } from '../tool-run/contract';
import type { PrintedOutput } from './printed-output';

export type OutcomeOf = (code: number, stdout: string, stderr: string, extra?: Partial<RunOutcome>) => RunOutcome;

export function outcomeSince(t0: number, printed?: PrintedOutput): OutcomeOf {
  return (code, stdout, stderr, extra = {}) => ({
    code,
    stdout,
    stderr,
    durationMs: Math.round(performance.now() - t0),
    ...(printed?.truncated ? { truncated: true } : {}),
    ...extra,
  });
}
