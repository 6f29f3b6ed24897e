// What a caller sees of its own run while it runs, on its own request's
// stream (so never another session): progress notifications when it asked
// for them with a progressToken, and log messages at the level it set with
// logging/setLevel. And the answer to a call it cancelled, which the SDK
// would drop, so that the call's stream ends instead of hanging open.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  LoggingLevelSchema,
  McpError,
  type CallToolResult,
  type LoggingLevel,
  type ProgressToken,
  type RequestId,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions, Runtime } from '../runtime';
import { timeLimitOf } from '../tool-run/time-limit';
import { teeEventSinks } from '../tool-run/contract';
import type { ToolCallResult } from '../tool-result';
import { RunLog } from './run-log';
import { onSetLoggingLevel, sendCancelledAnswer } from './sdk-gaps';
import { RunProgress } from './run-progress';

/** The part of the SDK's request extra that feedback needs. */
export interface FeedbackExtra {
  signal: AbortSignal;
  requestId: RequestId;
  _meta?: { progressToken?: ProgressToken };
  sendNotification(notification: ServerNotification): Promise<void>;
}

const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;

/** One connection's logging level and the feedback of its calls. */
export class ConnectionFeedback {
  private level: LoggingLevel | undefined;

  constructor(
    private readonly server: McpServer,
    private readonly runtime: Runtime,
  ) {
    onSetLoggingLevel(server, (level) => {
      const parsed = LoggingLevelSchema.safeParse(level);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `level must be one of ${SEVERITY.join(', ')}`);
      this.level = parsed.data;
    });
  }

  /** Whether a message of this level reaches the client (all do until it sets a level). */
  wants(level: LoggingLevel): boolean {
    return this.level === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(this.level);
  }

  /**
   * Runs one tool call with its feedback: `run` gets call options carrying a
   * sink for this call's run events. Progress stops before the answer.
   */
  async run(extra: FeedbackExtra, run: (call: Pick<CallOptions, 'events' | 'signal'>) => Promise<ToolCallResult>): Promise<ToolCallResult> {
    const notify = (n: ServerNotification): void => {
      extra.sendNotification(n).catch(() => undefined); // the client may be gone; the run goes on
    };
    const log = new RunLog((level, logger, data) => {
      if (this.wants(level)) notify({ method: 'notifications/message', params: { level, logger, data } });
    });
    const token = extra._meta?.progressToken;
    const progress =
      token !== undefined
        ? new RunProgress({
            send: (u) => notify({ method: 'notifications/progress', params: { progressToken: token, ...u } }),
            totalSeconds: (key) => this.timeLimitOf(key),
          })
        : undefined;
    try {
      return await run({ signal: extra.signal, events: progress ? teeEventSinks(log, progress) : log });
    } finally {
      progress?.stop();
    }
  }

  /**
   * Sends the answer of a call the client cancelled. The SDK drops it (the
   * spec lets a receiver do so), but then the call's SSE stream would stay
   * open; a client that cancelled ignores a late answer, as the spec says.
   */
  answerCancelled(extra: FeedbackExtra, result: CallToolResult): void {
    if (extra.signal.aborted) sendCancelledAnswer(this.server, extra.requestId, result);
  }

  private timeLimitOf(key: string): number | undefined {
    const tool = this.runtime.catalog.current.tools.get(key);
    try {
      return tool ? timeLimitOf(tool) : undefined;
    } catch {
      return undefined; // a bad limit refuses the run itself; progress just shows no total
    }
  }
}
