// The runtime every host embeds: a catalog, the session store and the
// executors, behind the operations the MCP tools expose. Hosts (CLI, editor)
// supply storage, logging and run-event sinks; nothing here knows about them.
import { randomUUID } from 'node:crypto';
import type { Catalog, ToolDef } from './catalog/types';
import { validateParams } from './catalog/params';
import { accessibleTools, canAccess } from './access';
import { Emitter, type Clock, type Logger, silentLogger, systemClock } from './host';
import { identityKeys, isReservedKey, type IdentityKeys, type Principal } from './identity';
import type { RunEventSink, ToolExecutor } from './runner/types';
import { nullEventSink } from './runner/types';
import { ToolInputError } from './runner/errors';
import { validateVariableName } from './session/names';
import { SessionError } from './session/errors';
import type { SessionStoreApi } from './session/types';
import { fail, ok, type ToolCallResult } from './tool-result';
import { formatRunFailure } from './run-failure';

export interface AuditEntry {
  at: number;
  user: string;
  sessionKey: string;
  toolKey: string;
  /** Params as validated, with override values masked. */
  params: Record<string, unknown>;
  durationMs: number;
  /** The run's return code, or 'error' when nothing ran. */
  code: number | 'error';
  error?: string;
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
}

export interface CallOptions {
  signal?: AbortSignal;
  clientName?: string;
}

const EMPTY_CATALOG: Catalog = { tools: new Map(), diagnostics: [], files: [] };

export class Runtime {
  private catalog: Catalog = EMPTY_CATALOG;
  private readonly catalogChanged = new Emitter<Catalog>();
  private readonly running = new Map<string, AbortController>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private closed = false;
  readonly onDidChangeCatalog = this.catalogChanged.event;

  constructor(private readonly opts: RuntimeOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.clock = opts.clock ?? systemClock;
  }

  get store(): SessionStoreApi {
    return this.opts.store;
  }

  setCatalog(catalog: Catalog): void {
    this.catalog = catalog;
    this.catalogChanged.fire(catalog);
  }

  getCatalog(): Catalog {
    return this.catalog;
  }

  /** Tools the principal may run; none while the gate is closed. */
  accessibleTools(p: Principal): ToolDef[] {
    if (this.opts.gate?.()) return [];
    return accessibleTools(p, this.catalog.tools.values());
  }

  identity(p: Principal): IdentityKeys {
    return identityKeys(p, this.accessibleTools(p).map((t) => t.key));
  }

  /** The store as a tool sees it: variables, then identity on top (never from storage). */
  storeView(p: Principal, sessionKey: string): Record<string, unknown> {
    const vars = this.opts.store.variables(p.user, sessionKey);
    return { ...vars, ...this.identity(p) };
  }

  async getSession(p: Principal, sessionKey: string, name: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    if (typeof name === 'string' && isReservedKey(name)) {
      await this.opts.store.touch(p.user, sessionKey, call.clientName);
      return ok(JSON.stringify(this.identity(p)[name]));
    }
    const bad = validateVariableName(name);
    if (bad) return fail(bad);
    await this.opts.store.touch(p.user, sessionKey, call.clientName);
    const vars = this.opts.store.variables(p.user, sessionKey);
    const key = name as string;
    return ok(JSON.stringify(Object.prototype.hasOwnProperty.call(vars, key) ? vars[key] : null));
  }

  async setSession(p: Principal, sessionKey: string, name: unknown, value: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    const bad = validateVariableName(name);
    if (bad) return fail(bad);
    if (value === undefined) return fail("set_session needs a 'value' (any JSON value; use null to store null).");
    try {
      await this.opts.store.set(p.user, sessionKey, name as string, value);
      await this.opts.store.touch(p.user, sessionKey, call.clientName);
    } catch (e) {
      if (e instanceof SessionError) return fail(e.message);
      throw e;
    }
    return ok(`Set '${name as string}'.`);
  }

  /** Validates and runs one catalog tool as the principal, in the principal's bucket. */
  async execute(p: Principal, sessionKey: string, key: unknown, rawParams: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    const started = this.clock.now();
    const gateReason = this.opts.gate?.();
    if (gateReason) return fail(gateReason);
    if (typeof key !== 'string' || key === '') return fail("execute needs a tool 'key' (see search or describe_tools).");
    const tool = this.catalog.tools.get(key);
    if (!tool) return fail(`Unknown tool '${key}'. Use search or describe_tools to find the tools you can run.`);
    if (!canAccess(p, tool)) return fail(`Unauthorized: user '${p.user}' may not run '${key}'.`);
    const params = parseParamsArgument(rawParams);
    if (typeof params === 'string') return fail(params);
    const validated = validateParams(tool, params);
    if (!validated.ok) return fail(`Invalid parameters for '${key}': ${validated.error}`);

    const audit = (code: number | 'error', error?: string): void =>
      this.opts.onAudit?.({
        at: started,
        user: p.user,
        sessionKey,
        toolKey: key,
        params: maskOverrides(tool, validated.params),
        durationMs: this.clock.now() - started,
        code,
        ...(error ? { error } : {}),
      });

    const executor = tool.kind === 'exec' ? this.opts.executors.exec : this.opts.executors.fn;
    if (!executor) {
      audit('error', 'function tools are not available');
      return fail(`'${key}' is a function tool, and this server has no function-tool runtime.`);
    }
    if (this.closed) return fail('The server is shutting down.');

    await this.opts.store.touch(p.user, sessionKey, call.clientName);
    const snapshot = this.storeView(p, sessionKey);
    const abort = new AbortController();
    const onAbort = (): void => abort.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    if (call.signal?.aborted) abort.abort(call.signal.reason);
    const runId = randomUUID();
    this.running.set(runId, abort);
    try {
      const outcome = await executor.run(tool, validated.params, {
        runId,
        caller: { user: p.user, sessionKey },
        store: snapshot,
        signal: abort.signal,
        events: this.opts.events ?? nullEventSink,
      });
      if (tool.kind === 'fn' && tool.takesContext && outcome.contextOut) {
        const wb = await this.opts.store.writeBack(p.user, sessionKey, snapshot, outcome.contextOut);
        if (!wb.applied) this.logger.warn(`write-back of '${key}' for ${p.user} rejected: ${wb.reason}`);
      }
      audit(outcome.code);
      if (outcome.code !== 0) return formatRunFailure(key, outcome);
      if (tool.kind === 'fn') return ok(typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value ?? null));
      return ok(outcome.stdout);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      audit('error', message);
      if (e instanceof ToolInputError) return fail(`'${key}' did not run: ${message}`);
      this.logger.error(`tool '${key}' crashed: ${e instanceof Error ? (e.stack ?? message) : message}`);
      return fail(`'${key}' failed inside the runtime: ${message}`);
    } finally {
      this.running.delete(runId);
      call.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Cancels one run (the runId of its RunEvents); false when it is not running. */
  cancelRun(runId: string): boolean {
    const abort = this.running.get(runId);
    abort?.abort(new Error('cancelled by the user'));
    return abort !== undefined;
  }

  /** Cancels running tools and stops the executors. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const a of this.running.values()) a.abort(new Error('server shutting down'));
    await Promise.all([this.opts.executors.exec.dispose?.(), this.opts.executors.fn?.dispose?.()]);
    await this.opts.store.flush();
    this.catalogChanged.dispose();
  }
}

/** Accepts params as an object, or as a JSON string of one (some agents send that). */
function parseParamsArgument(raw: unknown): Record<string, unknown> | string {
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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function maskOverrides(tool: ToolDef, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const spec of tool.params) if (spec.hasOverride && spec.name in out) out[spec.name] = '***';
  return out;
}
