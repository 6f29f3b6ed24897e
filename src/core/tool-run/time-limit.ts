// A run's time limit, decided in one place: the tool's `limits.timeout`, or
// the default of its kind (function tools have one; exec tools run until
// they end, as in MCC). Progress reports and the runners read the same.
import type { ToolDef } from '../catalog/types';
import { ToolInputError } from './errors';

/** Timeout of function tools that set none. */
export const DEFAULT_FN_TIMEOUT_SEC = 300;

/** Seconds the run may take, or undefined for none; throws ToolInputError on a bad limit. */
export function timeLimitOf(tool: ToolDef, fnDefaultSec = DEFAULT_FN_TIMEOUT_SEC): number | undefined {
  const t = tool.limits.timeout;
  if (t === undefined) return tool.kind === 'fn' ? fnDefaultSec : undefined;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0) {
    throw new ToolInputError(`limits.timeout must be a positive number of seconds, got ${JSON.stringify(t)}`);
  }
  return t;
}
