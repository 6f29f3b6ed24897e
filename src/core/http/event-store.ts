// The SSE events of one MCP session, kept briefly so a client whose stream
// broke can resume it with Last-Event-ID. Having an event store is also what
// makes the SDK open each POST stream with a priming event (an id and the
// `retry` hint). Bounded: a few hundred KiB per session, and the events of a
// stream that got its answer are dropped a minute later (see prune).
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { systemClock, type Clock } from '../host';

export interface EventStoreLimits {
  maxEvents: number;
  maxBytes: number;
  /** How long a stream's events stay after its response, for a late resume. */
  keepAnsweredMs: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: EventStoreLimits = { maxEvents: 200, maxBytes: 256 * 1024, keepAnsweredMs: 60_000 };

interface StoredEvent {
  id: EventId;
  streamId: StreamId;
  /**
   * The message as JSON: kept as text, not as the SDK's object, because a
   * session most clients abandon keeps its answers here for a minute, and a
   * `tools/list` answer as text is a fraction of its object graph.
   */
  json: string;
}

// A priming event: it carries no message, so there is nothing to send again.
const EMPTY = '{}';

export class BoundedEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private readonly byId = new Map<EventId, StoredEvent>();
  /** Streams whose response is stored, and when. */
  private readonly answered = new Map<StreamId, number>();
  private bytes = 0;
  private seq = 0;

  constructor(
    private readonly limits: EventStoreLimits = DEFAULT_EVENT_STORE_LIMITS,
    private readonly clock: Clock = systemClock,
  ) {}

  get size(): number {
    return this.events.length;
  }

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const event: StoredEvent = { id: `${++this.seq}`, streamId, json: JSON.stringify(message) };
    this.events.push(event);
    this.byId.set(event.id, event);
    this.bytes += event.json.length;
    if (isResponse(message)) this.answered.set(streamId, this.clock.now());
    // The newest event always stays: it is the one a resuming client needs.
    while (this.events.length > 1 && (this.events.length > this.limits.maxEvents || this.bytes > this.limits.maxBytes)) this.dropOldest();
    return Promise.resolve(event.id);
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.byId.get(eventId)?.streamId);
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (id: EventId, m: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.byId.get(lastEventId);
    if (!last) throw new Error(`event ${lastEventId} is no longer stored`);
    const after = this.events.filter((e) => e.streamId === last.streamId && Number(e.id) > Number(last.id));
    for (const e of after) if (e.json !== EMPTY) await send(e.id, JSON.parse(e.json) as JSONRPCMessage);
    return last.streamId;
  }

  /** Drops the events of streams answered longer than keepAnsweredMs ago. */
  prune(): void {
    const cutoff = this.clock.now() - this.limits.keepAnsweredMs;
    const stale = new Set([...this.answered].filter(([, at]) => at <= cutoff).map(([id]) => id));
    if (stale.size === 0) return;
    for (const id of stale) this.answered.delete(id);
    const kept = this.events.filter((e) => !stale.has(e.streamId));
    for (const e of this.events) if (stale.has(e.streamId)) this.forget(e);
    this.events.splice(0, this.events.length, ...kept);
  }

  private dropOldest(): void {
    const e = this.events.shift();
    if (e) this.forget(e);
  }

  private forget(e: StoredEvent): void {
    this.byId.delete(e.id);
    this.bytes -= e.json.length;
    if (!this.events.some((x) => x !== e && x.streamId === e.streamId)) this.answered.delete(e.streamId);
  }
}

/**
 * A response (result or error) to a request, as opposed to a request or a
 * notification. The SDK's own guards validate the whole message with zod,
 * which costs an error object per failed branch on every event stored; the
 * messages here were already validated, so their shape decides.
 */
function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message) && ('result' in message || 'error' in message);
}
