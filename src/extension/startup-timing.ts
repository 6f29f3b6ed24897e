// How long activation takes to reach a listening server and a loaded
// catalog, measured from the first line of activate(): logged to the MCC
// channel and offered on the extension's API (the e2e run prints it).
import type { Logger } from '../core/host';

export interface StartupTimes {
  /** ms from activation to the MCP server listening. */
  listeningMs?: number;
  /** ms from activation to listening with the catalog loaded (the API's `ready`). */
  readyMs?: number;
}

export class StartupTiming {
  readonly times: StartupTimes = {};

  /** t0: performance.now() at the start of activate(). */
  constructor(
    private readonly logger: Logger,
    private readonly t0: number,
  ) {}

  /** The first time the server listens (later restarts are not start-up). */
  listening(): void {
    if (this.times.listeningMs !== undefined) return;
    this.times.listeningMs = Math.round(performance.now() - this.t0);
    this.logger.info(`start-up: the MCP server listened ${this.times.listeningMs} ms after activation`);
  }

  ready(): void {
    if (this.times.readyMs !== undefined) return;
    this.times.readyMs = Math.round(performance.now() - this.t0);
    this.logger.info(`start-up: ready (catalog loaded) ${this.times.readyMs} ms after activation`);
  }
}
