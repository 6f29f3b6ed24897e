// The runtime every host embeds, assembled from one part per job: the
// catalog as each caller sees it (call/caller-catalog.ts), the path of every
// call (call/call-pipeline.ts) and the calls running now
// (call/running-calls.ts), over the session store and the tool runners.
// Hosts (CLI, editor) supply storage, logging and run-event sinks; nothing
// here knows about them.
import { type Clock, type Event, type Logger, silentLogger, systemClock } from './host';
import type { SessionStoreApi } from './session/types';
import { nullEventSink, type RunEventSink, type ToolRuns } from './tool-run/contract';
import { MINIMAL_SECRETS, type ServerSecrets } from './secrets';
import type { ExposeMode } from './expose';
import type { AuditEntry } from './call/audit-entry';
import { AuditTrail, type RecordedCall } from './call/audit-trail';
import { BucketRun } from './call/bucket-run';
import { BucketVariables } from './call/bucket-variables';
import { CallPipeline } from './call/call-pipeline';
import { CallerCatalog } from './call/caller-catalog';
import { RunningCalls } from './call/running-calls';
import { TaskRecords } from './call/task-records';
import type { Sandbox } from './sandbox/sandbox';
import { SessionHandles } from './session/session-handles';
import { randomBytes } from 'node:crypto';

export type { AuditEntry } from './call/audit-entry';
export type { CallOptions } from './call/call-pipeline';

export interface RuntimeOptions {
  store: SessionStoreApi;
  /** What runs each kind of tool: an executor inside the tool runner (tool-runner.ts). */
  executors: { exec: ToolRuns; fn?: ToolRuns };
  /** The server's secrets: never written into an audit entry (see serverSecrets; default: the name MCC_TOKEN). */
  secrets?: ServerSecrets;
  logger?: Logger;
  events?: RunEventSink;
  clock?: Clock;
  onAudit?: (entry: AuditEntry) => void;
  /** Refuses every catalog tool while it returns a reason (e.g. an untrusted workspace). */
  gate?: () => string | undefined;
  /** How agents see the catalog (default 'catalog'); see expose.ts. */
  expose?: ExposeMode;
  /** Who runs sandboxed, as describe_tools and the audit line show it (the executors enforce it). */
  sandbox?: Sandbox;
  /** Signs session handles (session-handles.ts): instances that share it accept each other's handles (default: random per start). */
  handleSecret?: string;
}

export class Runtime {
  /** The catalog as each caller sees it, and how agents are shown it. */
  readonly catalog: CallerCatalog;
  /** Every call: execute, search, describe_tools, get/set_session, audited reads. */
  readonly calls: CallPipeline;
  /** The calls running now (cancel one; shutdown stops them all). */
  readonly running = new RunningCalls();
  /** The session handles of callers without an MCP session. */
  readonly handles: SessionHandles;
  /** Tasks (2026-07-28 tasks extension), kept in the session store. */
  readonly tasks: TaskRecords;
  /** Every call once it is audited, with its principal and duration (metrics). */
  readonly onDidFinishCall: Event<RecordedCall>;

  constructor(private readonly opts: RuntimeOptions) {
    const logger = opts.logger ?? silentLogger;
    const clock = opts.clock ?? systemClock;
    this.catalog = new CallerCatalog(opts.gate, opts.expose);
    this.tasks = new TaskRecords(opts.store);
    this.handles = new SessionHandles(opts.handleSecret ?? randomBytes(32).toString('base64url'));
    const audit = new AuditTrail(opts.onAudit, opts.secrets ?? MINIMAL_SECRETS, clock, logger);
    this.onDidFinishCall = audit.onDidRecord;
    this.calls = new CallPipeline({
      catalog: this.catalog,
      store: opts.store,
      runs: opts.executors,
      running: this.running,
      bucketRun: new BucketRun(opts.store, this.catalog, logger),
      variables: new BucketVariables(opts.store, this.catalog),
      audit,
      clock,
      logger,
      events: opts.events ?? nullEventSink,
      ...(opts.sandbox ? { sandboxOf: (t) => opts.sandbox?.label(t) ?? 'off' } : {}),
    });
  }

  /** Who runs sandboxed (absent: only tools whose catalog asks, with default options). */
  get sandbox(): Sandbox | undefined {
    return this.opts.sandbox;
  }

  get store(): SessionStoreApi {
    return this.opts.store;
  }

  /**
   * Cancels running tools, waits until every call has produced its answer
   * (so transports can still deliver it), then stops the tool runners. The
   * store is the host's to close (which writes what it still holds, once).
   */
  async shutdown(): Promise<void> {
    await this.running.stopAll();
    await Promise.all([this.opts.executors.exec.dispose?.(), this.opts.executors.fn?.dispose?.()]);
    this.catalog.dispose();
  }
}
