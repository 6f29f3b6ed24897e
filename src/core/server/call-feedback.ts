// What a caller sees of its own run while it runs, on its own request's
// stream (so never another session): progress notifications when it asked
// for them with a progressToken, and log messages at the level it set with
// logging/setLevel. And the answer to a call it cancelled, which the SDK
// would drop, so that the call's stream ends instead of hanging open.
import type { McpServer } from '@modelcontextprotocol/server';
import {
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type LoggingLevel,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import type { CallOptions, Runtime } from '../runtime';
import { timeLimitOf } from '../tool-run/time-limit';
import { teeEventSinks } from '../tool-run/contract';
import { RunLog } from './run-log';
import { onSetLoggingLevel, sendCancelledAnswer } from './sdk-gaps';
import { RunProgress } from './run-progress';

/** The part of the SDK's request context that feedback needs. */
export type FeedbackExtra = Pick<ServerContext, 'mcpReq'>;

// The levels in rising severity (RFC 5424, as MCP names them).
const SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What one call's feedback gives the call, and how it ends. */
export interface CallFeedback {
  call: Pick<CallOptions, 'events' | 'signal'>;
  /** Progress stops before the answer goes out. */
  stopProgress(): void;
  answerIfCancelled(result: CallToolResult): void;
}

/** One connection's logging level and the feedback of its calls. */
export class ConnectionFeedback {
  private level: LoggingLevel | undefined;

  constructor(
    private readonly server: McpServer,
    private readonly runtime: Runtime,
    /** 2026-07-28: no logging/setLevel; each request names its level in `_meta`, and none means no log messages. */
    private readonly modern = false,
  ) {
    if (modern) return;
    onSetLoggingLevel(server, (level) => {
      if (!SEVERITY.includes(level as LoggingLevel)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `level must be one of ${SEVERITY.join(', ')}`);
      this.level = level as LoggingLevel;
    });
  }

  /** Whether a message of this level reaches the client (on 2025-11-25, all do until it sets a level). */
  wants(level: LoggingLevel, requested = this.level): boolean {
    if (this.modern && requested === undefined) return false;
    return requested === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(requested);
  }

  /**
   * The feedback of one tool call: call options carrying a sink for its run
   * events (progress and log messages), and `end`, which stops progress
   * before the answer and sends the answer of a call the client cancelled.
   */
  start(extra: FeedbackExtra): CallFeedback {
    const threshold = this.modern ? requestedLevel(extra) : this.level;
    const notify = (n: ServerNotification): void => {
      extra.mcpReq.notify(n).catch(() => undefined); // the client may be gone; the run goes on
    };
    const log = new RunLog((level, logger, data) => {
      if (this.wants(level, threshold)) notify({ method: 'notifications/message', params: { level, logger, data } });
    });
    const token = extra.mcpReq._meta?.progressToken;
    const progress =
      token !== undefined
        ? new RunProgress({
            send: (u) => notify({ method: 'notifications/progress', params: { progressToken: token, ...u } }),
            totalSeconds: (key) => this.totalSeconds(key),
          })
        : undefined;
    return {
      call: { signal: extra.mcpReq.signal, events: progress ? teeEventSinks(log, progress) : log },
      stopProgress: () => progress?.stop(),
      // The SDK drops the answer of a cancelled call (the spec lets a receiver
      // do so), but then its SSE stream would stay open; a client that
      // cancelled ignores a late answer, as the spec says.
      answerIfCancelled: (result) => {
        if (extra.mcpReq.signal.aborted) sendCancelledAnswer(this.server, extra.mcpReq.id, result);
      },
    };
  }

  /** The tool's time limit in seconds, when it has one (the total of its progress). */
  totalSeconds(key: string): number | undefined {
    const tool = this.runtime.catalog.current.tools.get(key);
    try {
      return tool ? timeLimitOf(tool) : undefined;
    } catch {
      return undefined; // a bad limit refuses the run itself; progress just shows no total
    }
  }
}

/** The log level a 2026-07-28 request asks for in its `_meta`, if a valid one. */
function requestedLevel(extra: FeedbackExtra): LoggingLevel | undefined {
  // The SDK lifts the reserved keys of `_meta` into the request's envelope.
  const level = (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
  return SEVERITY.includes(level as LoggingLevel) ? (level as LoggingLevel) : undefined;
}
