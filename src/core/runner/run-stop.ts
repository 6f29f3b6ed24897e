// How a running child is stopped, and why: the caller's abort (cancelled),
// its time budget (timeout) or a shutdown. The first reason wins.
import { stopReasonOf } from '../tool-run/errors';
import type { StopReason } from './outcome-text';

export class RunStop {
  private readonly controller = new AbortController();
  private why: StopReason | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  // The caller's abort says whether it is a cancel or the server shutting down.
  private readonly onCancel = (): void => this.halt(stopReasonOf(this.caller));

  /** `timeoutMs` undefined: no time limit. */
  constructor(
    private readonly caller: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    caller?.addEventListener('abort', this.onCancel, { once: true });
    if (caller?.aborted) this.onCancel();
    this.timer = timeoutMs !== undefined ? setTimeout(() => this.halt('timeout'), timeoutMs) : undefined;
  }

  /** Aborts when the run is to stop. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get reason(): StopReason | undefined {
    return this.why;
  }

  readonly halt = (r: StopReason): void => {
    if (this.why) return;
    this.why = r;
    this.controller.abort();
  };

  /** Drops the timer and the caller's listener once the run is over. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCancel);
  }
}
