// The core's Logger over the `MCC` LogOutputChannel, and the audit line of
// one tool call. Type-only vscode import: testable with a fake channel.
import type { LogOutputChannel } from 'vscode';
import type { Logger } from '../core/host';
import type { AuditEntry } from '../core/runtime';
import { shortKey } from './value-format';

export function channelLogger(channel: Pick<LogOutputChannel, 'info' | 'warn' | 'error' | 'debug'>): Logger {
  return {
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
    debug: (m) => channel.debug(m),
  };
}

/** user, session key (short), tool key, masked params, duration, result code. */
export function formatAudit(a: AuditEntry): string {
  const params = JSON.stringify(a.params);
  const shown = params.length > 500 ? `${params.slice(0, 499)}…` : params;
  const err = a.error ? ` (${a.error})` : '';
  return `call ${a.user} session=${shortKey(a.sessionKey)} ${a.toolKey} ${shown} -> ${a.code}${err} in ${a.durationMs} ms`;
}
