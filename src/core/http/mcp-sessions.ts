// The open MCP sessions of the HTTP endpoint and the limits that make them
// end: an idle limit (most clients never send DELETE), a cap per principal
// (anonymous callers share one small cap) and one overall. A session with a
// request in flight (a running tool) is busy: it neither expires nor makes
// room. One whose client listens on an open GET stream does not expire, but
// makes room for a new session at a full cap: least recently used first.
import type { ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { silentLogger, systemClock, type Clock, type Logger } from '../host';
import type { Principal } from '../identity';
import type { BoundedEventStore } from './event-store';
import { refusal, type HttpRefusal } from './json-rpc-errors';

export interface McpSessionLimits {
  /** A session with no request for this long is closed; 0 = never. */
  idleMs: number;
  /** Open sessions per principal (user name). */
  perPrincipal: number;
  /** Open sessions of all anonymous callers together. */
  anonymous: number;
  /** Open sessions in all. */
  total: number;
}

export const DEFAULT_SESSION_LIMITS: McpSessionLimits = { idleMs: 30 * 60_000, perPrincipal: 100, anonymous: 10, total: 1000 };

export interface McpSession {
  id: string;
  principal: Principal;
  server: McpServer;
  transport: NodeStreamableHTTPServerTransport;
  events: BoundedEventStore;
  lastActive: number;
  /** POST and DELETE requests not yet answered. */
  inFlight: number;
  /** Open GET streams (a client listening for notifications). */
  listening: number;
}

export class McpSessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(
    readonly limits: McpSessionLimits = DEFAULT_SESSION_LIMITS,
    opts: { logger?: Logger; clock?: Clock } = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? silentLogger;
    const every = limits.idleMs > 0 ? Math.min(60_000, Math.max(50, Math.floor(limits.idleMs / 4))) : 60_000;
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The session with this id, if it is open and belongs to this principal. */
  get(id: string, principal: Principal): McpSession | undefined {
    const s = this.sessions.get(id);
    // Another principal's session id is answered exactly like an unknown one.
    return s && s.principal.user === principal.user ? s : undefined;
  }

  /**
   * Makes room for one more session of the principal, closing the least
   * recently used idle session of a full cap; a refusal when all are busy.
   */
  admit(principal: Principal): HttpRefusal | undefined {
    const cap = principal.anonymous ? this.limits.anonymous : this.limits.perPrincipal;
    const own = [...this.sessions.values()].filter((s) => s.principal.user === principal.user);
    if (own.length >= cap) {
      const victim = leastRecentlyUsedFree(own);
      if (!victim) return refusal(429, `too many open MCP sessions for '${principal.user}' (${cap}), all busy; close one (DELETE) or retry later`, undefined, { 'Retry-After': '5' });
      this.close(victim, `cap of ${cap} sessions for ${principal.user}`);
    }
    if (this.sessions.size >= this.limits.total) {
      const victim = leastRecentlyUsedFree([...this.sessions.values()]);
      if (!victim) return refusal(503, `the server has its most open MCP sessions (${this.limits.total}), all busy; retry later`, undefined, { 'Retry-After': '5' });
      this.close(victim, `overall cap of ${this.limits.total} sessions`);
    }
    return undefined;
  }

  add(opened: Omit<McpSession, 'lastActive' | 'inFlight' | 'listening'>): McpSession {
    const session = { ...opened, lastActive: this.clock.now(), inFlight: 0, listening: 0 };
    this.sessions.set(session.id, session);
    this.logger.info(`MCP session opened for ${session.principal.user} (${this.sessions.size} open)`);
    return session;
  }

  remove(id: string): void {
    this.sessions.delete(id);
  }

  /** Counts the request (a GET: the stream) as open until its response is closed. */
  track(session: McpSession, res: ServerResponse, method: string | undefined): void {
    session.lastActive = this.clock.now();
    if (res.closed) return;
    const counter = method === 'GET' ? 'listening' : 'inFlight';
    session[counter]++;
    res.once('close', () => {
      session[counter]--;
      session.lastActive = this.clock.now();
    });
  }

  /** Closes sessions idle longer than the limit; prunes the event stores of the rest. */
  sweep(): void {
    const now = this.clock.now();
    for (const s of [...this.sessions.values()]) {
      const idle = s.inFlight === 0 && s.listening === 0 && now - s.lastActive >= this.limits.idleMs;
      if (this.limits.idleMs > 0 && idle) this.close(s, 'idle');
      else s.events.prune();
    }
  }

  /** Closes every session (shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.server.close()));
  }

  private close(s: McpSession, why: string): void {
    this.sessions.delete(s.id);
    this.logger.info(`MCP session of ${s.principal.user} closed (${why}); ${this.sessions.size} open`);
    s.server.close().catch((e: unknown) => this.logger.warn(`closing an MCP session failed: ${String(e)}`));
  }
}

function leastRecentlyUsedFree(sessions: McpSession[]): McpSession | undefined {
  let best: McpSession | undefined;
  for (const s of sessions) if (s.inFlight === 0 && (!best || s.lastActive < best.lastActive)) best = s;
  return best;
}
