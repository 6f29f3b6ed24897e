// Logging for the headless server: everything on stderr, stdout stays clean
// for the one JSON line (HTTP) or the protocol (stdio).
import type { Logger } from '../core/host';
import type { RunEvent, RunEventSink } from '../core/tool-run/contract';
import { logField } from '../core/log-text';

export function stderrLogger(debug = false): Logger {
  const line = (level: string, m: string): void => {
    process.stderr.write(`${new Date().toISOString()} ${level} ${m}\n`);
  };
  return {
    info: (m) => line('info ', m),
    warn: (m) => line('warn ', m),
    error: (m) => line('error', m),
    debug: (m) => (debug ? line('debug', m) : undefined),
  };
}

/** Run events as log lines: what ran, for whom, and how it ended; one line each, whatever the fields hold. */
export function runEventLogger(logger: Logger): RunEventSink {
  return {
    emit(e: RunEvent) {
      if (e.type === 'started') {
        logger.info(`run ${e.runId.slice(0, 8)} ${logField(e.toolKey)} by ${logField(e.caller.user)} [${e.mode}]: ${logField(e.command, 2000)}`);
      } else if (e.type === 'exited') {
        logger.info(`run ${e.runId.slice(0, 8)} exited ${e.code} after ${e.durationMs} ms${e.error ? `: ${logField(e.error, 500)}` : ''}`);
      }
    },
  };
}
