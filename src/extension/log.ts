// The core's Logger over the `MCC` LogOutputChannel, and the audit line of
// one tool call. Type-only vscode import: testable with a fake channel.
import type { LogOutputChannel } from 'vscode';
import type { Logger } from '../core/host';
import { formatAuditLine, type AuditEntry } from '../core/call/audit-entry';
import { shortKey } from './value-format';

export function channelLogger(channel: Pick<LogOutputChannel, 'info' | 'warn' | 'error' | 'debug'>): Logger {
  return {
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
    debug: (m) => channel.debug(m),
  };
}

/** The core's audit line (every field escaped), with the editor's short session keys. */
export function formatAudit(a: AuditEntry): string {
  return formatAuditLine(a, shortKey);
}
