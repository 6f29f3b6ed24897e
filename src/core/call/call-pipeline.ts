// The one path of every call, whatever asked for it (an MCP tool, a direct
// tool, the session resource, a prompt, the editor's Run Tool): each step
// once, in this order, for a catalog tool:
//   find the tool the caller may run -> read the params -> ask for what is
//   missing -> validate -> run it in the caller's bucket (tool runner) ->
//   write back -> answer -> audit.
// Every call is audited exactly once, refusals and crashes included; nothing
// else writes audit entries.
import type { ToolDef } from '../catalog/types';
import { validateParams } from '../catalog/params';
import type { Clock, Logger } from '../host';
import type { Principal } from '../identity';
import { describeAnswer, searchAnswer } from '../search/tool-listing';
import type { SearchOptions } from '../search/tool-search';
import { SessionError } from '../session/errors';
import type { SessionStoreApi } from '../session/types';
import { fail, type ToolCallResult } from '../tool-result';
import { teeEventSinks, type RunEventSink, type ToolRuns } from '../tool-run/contract';
import { ToolInputError } from '../tool-run/errors';
import type { AuditTrail } from './audit-trail';
import { clientLabel } from './audit-trail';
import type { BucketRun } from './bucket-run';
import type { BucketVariables } from './bucket-variables';
import { maskOverrides, parseParamsArgument, tooDeep } from './call-params';
import type { CallerCatalog } from './caller-catalog';
import { askMissing, type ParamAsker } from './missing-params';
import { refusalDetails, runAnswer } from './run-answer';
import type { RunningCalls } from './running-calls';

export interface CallOptions {
  signal?: AbortSignal;
  /** clientInfo.name of the connection; bounded before it is stored or logged. */
  clientName?: string;
  /** This call's own run events (progress for its caller), besides the host's sink. */
  events?: RunEventSink;
  /** Asks the caller's user for missing required params (MCP elicitation), when the client can. */
  ask?: ParamAsker;
  /** The bucket is new to this call (a caller that named none): it is kept only if the call writes to it. */
  freshBucket?: boolean;
}

/** Who calls, in which bucket. */
export interface CallScope {
  principal: Principal;
  bucketKey: string;
}

interface Answered {
  result: ToolCallResult;
  code: number | 'error';
  /** What the audit line shows of the params. */
  params: Record<string, unknown>;
  /** The tool key, once known. */
  what?: string;
  /** The sandbox the tool ran (or was to run) in. */
  sandbox?: 'default' | 'tool';
}

export interface CallPipelineParts {
  catalog: CallerCatalog;
  store: SessionStoreApi;
  runs: { exec: ToolRuns; fn?: ToolRuns };
  running: RunningCalls;
  bucketRun: BucketRun;
  variables: BucketVariables;
  audit: AuditTrail;
  clock: Clock;
  logger: Logger;
  /** The host's sink of every run's events. */
  events: RunEventSink;
  /** The sandbox of a tool (sandbox/profile.ts); absent: none runs sandboxed. */
  sandboxOf?: (tool: ToolDef) => 'off' | 'default' | 'tool';
}

export class CallPipeline {
  constructor(private readonly parts: CallPipelineParts) {}

  /** Validates and runs one catalog tool as the principal, in its bucket. */
  async execute(p: Principal, bucketKey: string, key: unknown, rawParams: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    const started = this.parts.clock.now();
    let answered: Answered;
    try {
      answered = await this.catalogCall({ principal: p, bucketKey }, key, rawParams, call);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.parts.logger.error(`execute of '${String(key)}' crashed: ${e instanceof Error ? (e.stack ?? message) : message}`);
      answered = { result: fail(`'${String(key)}' failed inside the runtime: ${message}`), code: 'error', params: {} };
    }
    const what = answered.what ?? (typeof key === 'string' ? key : 'execute');
    this.parts.audit.record({ principal: p, bucketKey, what, params: answered.params, started, result: answered.result, code: answered.code, clientName: call.clientName, ...(answered.sandbox ? { sandbox: answered.sandbox } : {}) });
    return answered.result;
  }

  /** Keyword search over the tools the principal may run (audited with the MCP argument names). */
  search(p: Principal, bucketKey: string, query: string, opts: SearchOptions = {}, call: CallOptions = {}): Promise<ToolCallResult> {
    const params = { query, ...(opts.limit !== undefined ? { limit: opts.limit } : {}), ...(opts.minScore !== undefined ? { min_score: opts.minScore } : {}) };
    return this.audited({ principal: p, bucketKey }, 'search', params, call, () => searchAnswer(this.parts.catalog.accessibleTools(p), query, opts));
  }

  /** Every tool the principal may run (in all of `groups`), as key and description. */
  describeTools(p: Principal, bucketKey: string, groups?: string[], call: CallOptions = {}): Promise<ToolCallResult> {
    return this.audited({ principal: p, bucketKey }, 'describe_tools', groups ? { groups } : {}, call, () =>
      describeAnswer(this.parts.catalog.accessibleTools(p), groups, (t) => {
        const s = this.parts.sandboxOf?.(t);
        return s === undefined || s === 'off' ? undefined : s;
      }),
    );
  }

  /** One variable of the bucket (or identity key) as JSON. */
  getSession(p: Principal, bucketKey: string, name: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    return this.audited({ principal: p, bucketKey }, 'get_session', { name }, call, () => this.parts.variables.read(p, bucketKey, name, clientLabel(call.clientName), call.freshBucket === true));
  }

  /** Stores one variable; audited by name only (values may be secrets). */
  setSession(p: Principal, bucketKey: string, name: unknown, value: unknown, call: CallOptions = {}): Promise<ToolCallResult> {
    return this.audited({ principal: p, bucketKey }, 'set_session', { name }, call, () => this.parts.variables.write(p, bucketKey, name, value, clientLabel(call.clientName)));
  }

  /** The bucket as a tool sees it: variables, then identity on top. Not audited: callers audit with read(). */
  view(p: Principal, bucketKey: string): Promise<Record<string, unknown>> {
    return this.parts.bucketRun.view(p, bucketKey);
  }

  /**
   * A read that is not a tool call (the mcc://session resource, a prompt),
   * audited like one: `what` names it; a throw is audited as an error and
   * passed on, for the MCP layer to answer as its protocol says.
   */
  async read<T>(scope: CallScope, what: string, params: Record<string, unknown>, call: CallOptions, produce: () => Promise<T>): Promise<T> {
    const started = this.parts.clock.now();
    try {
      const value = await produce();
      this.parts.audit.record({ ...scope, what, params, started, result: { isError: false, text: '' }, code: 0, clientName: call.clientName });
      return value;
    } catch (e) {
      const result = fail(e instanceof Error ? e.message : String(e));
      this.parts.audit.record({ ...scope, what, params, started, result, code: 'error', clientName: call.clientName });
      throw e;
    }
  }

  // The one audit path of the calls that run no tool.
  private async audited(scope: CallScope, what: string, params: Record<string, unknown>, call: CallOptions, run: () => ToolCallResult | Promise<ToolCallResult>): Promise<ToolCallResult> {
    const started = this.parts.clock.now();
    let result: ToolCallResult;
    try {
      result = await run();
    } catch (e) {
      // Still one audit line and a clear error result, never a bare protocol error.
      result = fail(`${what} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.parts.audit.record({ ...scope, what, params, started, result, code: result.isError ? 'error' : 0, clientName: call.clientName });
    return result;
  }

  // Each step of a catalog call, once; a refusal answers at the first step that refuses.
  private async catalogCall(scope: CallScope, key: unknown, rawParams: unknown, call: CallOptions): Promise<Answered> {
    const refused = (text: string, params: Record<string, unknown> = {}, what?: string): Answered => ({
      result: fail(text, refusalDetails(text)),
      code: 'error',
      params,
      ...(what !== undefined ? { what } : {}),
    });
    const found = this.parts.catalog.lookup(scope.principal, key);
    if ('refused' in found) return refused(found.refused);
    const tool = found.tool;
    let given = parseParamsArgument(rawParams);
    if (typeof given === 'string') return refused(given, {}, tool.key);
    const deep = tooDeep(tool.key, given);
    if (deep) return refused(deep.refused, deep.shown, tool.key);
    if (call.ask) {
      const asked = await askMissing(tool, given, call.ask);
      if ('refused' in asked) return refused(asked.refused, maskOverrides(tool, given), tool.key);
      given = asked.params;
    }
    const validated = validateParams(tool, given);
    if (!validated.ok) return refused(`Invalid parameters for '${tool.key}': ${validated.error}`, { ...given }, tool.key);
    const masked = maskOverrides(tool, validated.params);
    const runs = tool.kind === 'exec' ? this.parts.runs.exec : this.parts.runs.fn;
    if (!runs) return refused(`'${tool.key}' is a function tool, and this server has no function-tool runtime.`, masked, tool.key);
    if (this.parts.running.closing) return refused('The server is shutting down.', masked, tool.key);
    const answered = await this.runTool(scope, tool, runs, validated.params, call);
    const sandbox = this.parts.sandboxOf?.(tool);
    return { ...answered, params: masked, what: tool.key, ...(sandbox && sandbox !== 'off' ? { sandbox } : {}), ...(answered.code === 'error' ? { result: withRefusalDetails(answered.result) } : {}) };
  }

  private async runTool(scope: CallScope, tool: ToolDef, runs: ToolRuns, params: Record<string, unknown>, call: CallOptions): Promise<Omit<Answered, 'params'>> {
    const { principal: p, bucketKey } = scope;
    const running = this.parts.running.start(call.signal);
    try {
      if (!call.freshBucket) this.parts.store.touch(p.user, bucketKey, clientLabel(call.clientName));
      const events = call.events ? teeEventSinks(this.parts.events, call.events) : this.parts.events;
      const run = { runId: running.runId, signal: running.signal, events, caller: { user: p.user, bucketKey } };
      const { outcome, note } = await this.parts.bucketRun.run(p, bucketKey, tool, runs, params, run);
      return { result: runAnswer(tool, outcome, note), code: outcome.code };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof ToolInputError || e instanceof SessionError) return { result: fail(`'${tool.key}' did not run: ${message}`), code: 'error' };
      this.parts.logger.error(`tool '${tool.key}' crashed: ${e instanceof Error ? (e.stack ?? message) : message}`);
      return { result: fail(`'${tool.key}' failed inside the runtime: ${message}`), code: 'error' };
    } finally {
      running.end();
    }
  }
}

/** A call that ran nothing answers in the shape of a run (code -1, the reason as stderr). */
function withRefusalDetails(result: ToolCallResult): ToolCallResult {
  return fail(result.text, refusalDetails(result.text));
}
