// The runtime every host embeds: a catalog, the session store and the
// executors, behind the operations the MCP tools expose. Hosts (CLI, editor)
// supply storage, logging and run-event sinks; nothing here knows about them.
import { randomUUID } from 'node:crypto';
import type { Catalog, ToolDef } from './catalog/types';
import { validateParams } from './catalog/params';
import { EMPTY_CATALOG } from './catalog/load';
import { isPlainObject } from './catalog/coerce';
import { canAccess } from './access';
import { AccessCache } from './access-cache';
import { Emitter, type Clock, type Logger, silentLogger, systemClock } from './host';
import { identityKeys, isReservedKey, type IdentityKeys, type Principal } from './identity';
import type { RunOutcome, RunEventSink, ToolExecutor } from './tool-run/contract';
import { nullEventSink, teeEventSinks } from './tool-run/contract';
import { ServerShutdown, ToolInputError } from './tool-run/errors';
import { validateVariableName } from './session/variable-names';
import { SessionError } from './session/errors';
import type { SessionStoreApi } from './session/types';
import { fail, ok, type ToolCallResult } from './tool-result';
import { formatRunFailure, refusalDetails, runDetails } from './call/run-answer';
import type { AuditEntry } from './audit';
import { boundText, logField } from './log-text';
import { clipDepth, MAX_PARAMS_DEPTH, tooDeepParam } from './call/params-depth';
import { describeAnswer, searchAnswer } from './search/tool-listing';
import type { SearchOptions } from './search/tool-search';
import { MINIMAL_SECRETS, scrubSecrets, type ServerSecrets } from './secrets';
import type { ExposeMode } from './expose';

export type { AuditEntry } from './audit';

const NO_TOOLS: readonly ToolDef[] = Object.freeze([]);
const NO_KEYS: readonly string[] = Object.freeze([]);

/** Longest client name kept (clientInfo.name is whatever the client says about itself). */
export const MAX_CLIENT_NAME = 200;
/** Longest tool key an audit line repeats (an unknown key is whatever the caller sent). */
const MAX_AUDITED_KEY = 200;

interface RunResult {
  result: ToolCallResult;
  code: number | 'error';
  params: Record<string, unknown>;
}

export interface RuntimeOptions {
  store: SessionStoreApi;
  executors: { exec: ToolExecutor; fn?: ToolExecutor };
  logger?: Logger;
  events?: RunEventSink;
  clock?: Clock;
  onAudit?: (entry: AuditEntry) => void;
  /** Refuses every catalog tool while it returns a reason (e.g. an untrusted workspace). */
  gate?: () => string | undefined;
  /** Secret values never written into an audit entry. */
  secrets?: ServerSecrets;
  /** How agents see the catalog (default 'catalog'); see expose.ts. */
  expose?: ExposeMode;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** clientInfo.name of the connection; bounded before it is stored or logged. */
  clientName?: string;
  /** This call's own run events (progress for its caller), besides the host's sink. */
  events?: RunEventSink;
}

export class Runtime {
  private catalog: Catalog = EMPTY_CATALOG;
  private readonly access = new AccessCache(() => this.catalog.tools.values());
  private readonly catalogChanged = new Emitter<Catalog>();
  private readonly exposeChanged = new Emitter<ExposeMode>();
  private exposeMode: ExposeMode;
  private readonly running = new Map<string, AbortController>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private closed = false;
  private readonly idleWaiters: Array<() => void> = [];
  readonly onDidChangeCatalog = this.catalogChanged.event;
  /** Fires when the expose mode changes (connected servers update their tool lists). */
  readonly onDidChangeExpose = this.exposeChanged.event;

  constructor(private readonly opts: RuntimeOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.clock = opts.clock ?? systemClock;
    this.exposeMode = opts.expose ?? 'catalog';
  }

  get expose(): ExposeMode {
    return this.exposeMode;
  }

  setExpose(mode: ExposeMode): void {
    if (mode === this.exposeMode) return;
    this.exposeMode = mode;
    this.exposeChanged.fire(mode);
  }

  /** The runtime's clock, for timing calls measured outside it. */
  now(): number {
    return this.clock.now();
  }

  get store(): SessionStoreApi {
    return this.opts.store;
  }

  setCatalog(catalog: Catalog): void {
    this.catalog = catalog;
    this.access.clear();
    this.catalogChanged.fire(catalog);
  }

  getCatalog(): Catalog {
    return this.catalog;
  }

  /** Tools the principal may run, sorted by key; none while the gate is closed. Cached per catalog. */
  accessibleTools(p: Principal): readonly ToolDef[] {
    if (this.opts.gate?.()) return NO_TOOLS;
    return this.access.toolsFor(p);
  }

  /** The read-only identity keys; `tools` is empty while the gate is closed. Cached per catalog. */
  identity(p: Principal): IdentityKeys {
    if (this.opts.gate?.()) return identityKeys(p, NO_KEYS);
    return this.access.identityOf(p);
  }

  /** The store as a tool sees it: variables, then identity on top (never from storage). */
  async storeView(p: Principal, sessionKey: string): Promise<Record<string, unknown>> {
    const vars = await this.opts.store.variables(p.user, sessionKey);
    return { ...vars, ...this.identity(p) };
  }

  /** Keyword search over the tools the principal may run; audited (with the MCP argument names). */
  search(p: Principal, sessionKey: string, query: string, opts: SearchOptions = {}, call: CallOptions = {}): Promise<ToolCallResult> {
    const params = { query, ...(opts.limit !== undefined ? { limit: opts.limit } : {}), ...(opts.minScore !== undefined ? { min_score: opts.minScore } : {}) };
    return this.audited(p, sessionKey, 'search', params, call, () => searchAnswer(this.accessibleTools(p), query, opts));
  }

  /** Every tool the principal may run (in all of `groups`), as key and description; audited. */
  describeTools(p: Principal, sessionKey: string, groups?: string[], call: CallOptions = {}): Promise<ToolCallResult> {
    return this.audited(p, sessionKey, 'describe_tools', groups ? { groups } : {}, call, () => describeAnswer(this.accessibleTools(p), groups));
  }

  /** One session variable (or identity key) as JSON; audited. */
  getSession(p: Principal, sessionKey: string, name: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    return this.audited(p, sessionKey, 'get_session', { name }, call, () => this.readVariable(p, sessionKey, name, call));
  }

  /** Stores one session variable; audited by name only (values may be secrets). */
  setSession(p: Principal, sessionKey: string, name: unknown, value: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    return this.audited(p, sessionKey, 'set_session', { name }, call, () => this.writeVariable(p, sessionKey, name, value, call));
  }

  private async readVariable(p: Principal, sessionKey: string, name: unknown, call: CallOptions): Promise<ToolCallResult> {
    const reserved = typeof name === 'string' && isReservedKey(name);
    const bad = reserved ? undefined : validateVariableName(name);
    if (bad) return fail(bad);
    try {
      // Reads write nothing now: the last use is queued and written in a batch.
      this.opts.store.touch(p.user, sessionKey, clientLabel(call));
      if (reserved) return ok(JSON.stringify(this.identity(p)[name]));
      const vars = await this.opts.store.variables(p.user, sessionKey);
      const key = name as string;
      return ok(JSON.stringify(Object.prototype.hasOwnProperty.call(vars, key) ? vars[key] : null));
    } catch (e) {
      if (e instanceof SessionError) return fail(e.message);
      throw e;
    }
  }

  private async writeVariable(p: Principal, sessionKey: string, name: unknown, value: unknown, call: CallOptions): Promise<ToolCallResult> {
    const bad = validateVariableName(name);
    if (bad) return fail(bad);
    if (value === undefined) return fail("set_session needs a 'value' (any JSON value; use null to store null).");
    try {
      // One durable write; the last use and client name ride with it.
      await this.opts.store.set(p.user, sessionKey, name as string, value, clientLabel(call));
    } catch (e) {
      if (e instanceof SessionError) return fail(e.message);
      throw e;
    }
    return ok(`Set '${name as string}'.`);
  }

  /** Validates and runs one catalog tool as the principal, in the principal's bucket; audited exactly once, whatever happens. */
  async execute(p: Principal, sessionKey: string, key: unknown, rawParams: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    const started = this.clock.now();
    let run: RunResult;
    try {
      run = await this.runCatalogTool(p, sessionKey, key, rawParams, call);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.logger.error(`execute of '${String(key)}' crashed: ${e instanceof Error ? (e.stack ?? message) : message}`);
      run = { result: fail(`'${String(key)}' failed inside the runtime: ${message}`), code: 'error', params: {} };
    }
    this.recordCall(p, sessionKey, typeof key === 'string' ? key : 'execute', run.params, started, run.result, run.code, call);
    return run.result;
  }

  // The one audit path of the calls that are not execute.
  private async audited(
    p: Principal,
    sessionKey: string,
    tool: string,
    params: Record<string, unknown>,
    call: CallOptions,
    run: () => ToolCallResult | Promise<ToolCallResult>,
  ): Promise<ToolCallResult> {
    const started = this.clock.now();
    let result: ToolCallResult;
    try {
      result = await run();
    } catch (e) {
      // Still one audit line and a clear error result, never a bare protocol error.
      result = fail(`${tool} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.recordCall(p, sessionKey, tool, params, started, result, result.isError ? 'error' : 0, call);
    return result;
  }

  /** Writes the audit entry of a call that has finished; never throws. */
  /**
   * Audits a catalog call that was refused before it reached execute (the
   * user declined the form asking for its params): one line, like any call.
   */
  recordRefusal(p: Principal, sessionKey: string, toolKey: string, params: Record<string, unknown>, started: number, result: ToolCallResult, call: CallOptions = {}): void {
    this.recordCall(p, sessionKey, toolKey, params, started, result, 'error', call);
  }

  private recordCall(
    p: Principal,
    sessionKey: string,
    toolKey: string,
    params: Record<string, unknown>,
    started: number,
    result: ToolCallResult,
    code: number | 'error',
    call: CallOptions,
  ): void {
    const secrets = this.opts.secrets ?? MINIMAL_SECRETS;
    const scrub = (t: string): string => scrubSecrets(t, secrets);
    const error = code === 'error' && result.isError ? result.text.split('\n')[0] : undefined;
    const client = clientLabel(call);
    const entry: AuditEntry = {
      at: started,
      user: p.user,
      sessionKey,
      toolKey: scrub(boundText(toolKey, MAX_AUDITED_KEY)),
      params: scrubStrings(params, scrub) as Record<string, unknown>,
      durationMs: this.clock.now() - started,
      code,
      ...(error ? { error: scrub(error) } : {}),
      ...(client !== undefined ? { client: scrub(client) } : {}),
    };
    try {
      this.opts.onAudit?.(entry);
    } catch (e) {
      this.logger.error(`the audit line of ${entry.toolKey} could not be written: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async runCatalogTool(p: Principal, sessionKey: string, key: unknown, rawParams: unknown, call: CallOptions): Promise<RunResult> {
    const refused = (text: string, params: Record<string, unknown> = {}): RunResult => ({ result: fail(text, refusalDetails(text)), code: 'error', params });
    const gateReason = this.opts.gate?.();
    if (gateReason) return refused(gateReason);
    if (typeof key !== 'string' || key === '') return refused("execute needs a tool 'key' (see search or describe_tools).");
    const tool = this.catalog.tools.get(key);
    if (!tool) return refused(`Unknown tool '${key}'. Use search or describe_tools to find the tools you can run.`);
    if (!canAccess(p, tool)) return refused(`Unauthorized: user '${p.user}' may not run '${key}'.`);
    const params = parseParamsArgument(rawParams);
    if (typeof params === 'string') return refused(params);
    const deep = tooDeepParam(params);
    if (deep !== undefined) {
      const clipped = clipDepth(params, 4) as Record<string, unknown>;
      return refused(`Invalid parameters for '${key}': '${deep}' is nested deeper than ${MAX_PARAMS_DEPTH} levels; nothing was run.`, clipped);
    }
    const validated = validateParams(tool, params);
    if (!validated.ok) return refused(`Invalid parameters for '${key}': ${validated.error}`, { ...params });
    const masked = maskOverrides(tool, validated.params);

    const executor = tool.kind === 'exec' ? this.opts.executors.exec : this.opts.executors.fn;
    if (!executor) return refused(`'${key}' is a function tool, and this server has no function-tool runtime.`, masked);
    if (this.closed) return refused('The server is shutting down.', masked);

    // Registered before the first await, so a shutdown that starts now waits for this call.
    const abort = new AbortController();
    const onAbort = (): void => abort.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    if (call.signal?.aborted) abort.abort(call.signal.reason);
    const runId = randomUUID();
    this.running.set(runId, abort);
    try {
      this.opts.store.touch(p.user, sessionKey, clientLabel(call));
      const events = call.events ? teeEventSinks(this.opts.events ?? nullEventSink, call.events) : (this.opts.events ?? nullEventSink);
      const { outcome, note } = await this.runInSession(p, sessionKey, tool, executor, validated.params, { runId, signal: abort.signal, events });
      const done = (result: ToolCallResult): RunResult => ({ result: note ? { ...result, text: result.text + note } : result, code: outcome.code, params: masked });
      if (outcome.code !== 0) return done(formatRunFailure(key, outcome));
      const answer = tool.kind === 'fn' ? (typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value ?? null)) : outcome.stdout;
      return done(ok(answer, runDetails(outcome, answer)));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof ToolInputError) return refused(`'${key}' did not run: ${message}`, masked);
      if (e instanceof SessionError) return refused(`'${key}' did not run: ${message}`, masked);
      this.logger.error(`tool '${key}' crashed: ${e instanceof Error ? (e.stack ?? message) : message}`);
      return refused(`'${key}' failed inside the runtime: ${message}`, masked);
    } finally {
      this.running.delete(runId);
      call.signal?.removeEventListener('abort', onAbort);
      if (this.running.size === 0) for (const notify of this.idleWaiters.splice(0)) notify();
    }
  }

  /**
   * Runs the tool on a fresh read of the bucket. Tools that receive `context`
   * run one at a time per bucket in this server, so each write-back builds on
   * the one before; across servers, the store refuses a write-back over a key
   * another call changed since the read, and the note tells the caller.
   */
  private runInSession(
    p: Principal,
    sessionKey: string,
    tool: ToolDef,
    executor: ToolExecutor,
    params: Record<string, unknown>,
    run: { runId: string; signal: AbortSignal; events: RunEventSink },
  ): Promise<{ outcome: RunOutcome; note: string }> {
    const writesBack = tool.kind === 'fn' && tool.takesContext;
    const inSession = async (): Promise<{ outcome: RunOutcome; note: string }> => {
      const snapshot = await this.storeView(p, sessionKey);
      const outcome = await executor.run(tool, params, { ...run, caller: { user: p.user, sessionKey }, store: snapshot });
      const note = writesBack && outcome.contextOut ? await this.writeBack(p, sessionKey, tool.key, snapshot, outcome.contextOut) : '';
      return { outcome, note };
    };
    return writesBack ? this.opts.store.exclusive(p.user, sessionKey, inSession) : inSession();
  }

  /** Applies a tool's context; returns a note for the caller when its changes were not saved. */
  private async writeBack(p: Principal, sessionKey: string, key: string, snapshot: Record<string, unknown>, returned: Record<string, unknown>): Promise<string> {
    try {
      const wb = await this.opts.store.writeBack(p.user, sessionKey, snapshot, returned);
      if (wb.applied) return '';
      this.logger.warn(`write-back of '${key}' for ${p.user} rejected: ${logField(wb.reason, 500)}`);
      // A conflict is the caller's business (its change did not land); a bad key is the tool author's (logged).
      return wb.conflicts ? `\n[mcc: ${wb.reason}]` : '';
    } catch (e) {
      // The tool ran: its answer is still returned, saying its session changes were lost.
      if (!(e instanceof SessionError)) throw e;
      this.logger.error(`write-back of '${key}' for ${p.user} failed: ${e.message}`);
      return `\n[mcc: the tool's session changes were not saved: ${e.message}]`;
    }
  }

  /** Cancels one run (the runId of its RunEvents); false when it is not running. */
  cancelRun(runId: string): boolean {
    const abort = this.running.get(runId);
    abort?.abort(new Error('cancelled by the user'));
    return abort !== undefined;
  }

  /**
   * Cancels running tools, waits until every call has produced its answer
   * (so transports can still deliver it), then stops the executors.
   */
  async shutdown(): Promise<void> {
    this.closed = true;
    const idle = this.running.size === 0 ? Promise.resolve() : new Promise<void>((r) => this.idleWaiters.push(r));
    for (const a of this.running.values()) a.abort(new ServerShutdown());
    await idle;
    await Promise.all([this.opts.executors.exec.dispose?.(), this.opts.executors.fn?.dispose?.()]);
    await this.opts.store.flush();
    this.catalogChanged.dispose();
    this.exposeChanged.dispose();
  }
}

/** The client's name, bounded before it is stored or logged. */
function clientLabel(call: CallOptions): string | undefined {
  return call.clientName === undefined ? undefined : boundText(call.clientName, MAX_CLIENT_NAME);
}

// Params are at most MAX_PARAMS_DEPTH deep here (deeper ones were clipped).
function scrubStrings(v: unknown, scrub: (t: string) => string): unknown {
  if (typeof v === 'string') return scrub(v);
  if (Array.isArray(v)) return v.map((x) => scrubStrings(x, scrub));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[scrub(k)] = scrubStrings(x, scrub);
    return out;
  }
  return v;
}

/** Accepts params as an object, or as a JSON string of one (some agents send that). */
export function parseParamsArgument(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // fall through to the error below
    }
    return "'params' must be an object of parameter values (or a JSON string of one).";
  }
  if (isPlainObject(raw)) return raw;
  return "'params' must be an object of parameter values.";
}

export function maskOverrides(tool: ToolDef, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const spec of tool.params) if (spec.hasOverride && spec.name in out) out[spec.name] = '***';
  return out;
}
