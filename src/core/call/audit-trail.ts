// The one audit path: every call of every MCP surface (tools, the session
// resource, prompts) and of the editor writes exactly one entry, refusals
// included, with the server's secrets scrubbed from every field.
import { Emitter, type Clock, type Logger } from '../host';
import type { Principal } from '../identity';
import { boundText } from '../log-text';
import { setOwn } from '../json/json-value';
import { scrubSecrets, type ServerSecrets } from '../secrets';
import type { ToolCallResult } from '../tool-result';
import type { AuditEntry } from './audit-entry';

/** Longest client name kept (clientInfo.name is whatever the client says about itself). */
export const MAX_CLIENT_NAME = 200;
/** Longest tool key an audit line repeats (an unknown key is whatever the caller sent). */
const MAX_AUDITED_KEY = 200;

/** One finished call, as the pipeline knows it. */
export interface FinishedCall {
  principal: Principal;
  bucketKey: string;
  /** The catalog tool's key, or the MCP surface's name (set_session, prompt:…, resource:…). */
  what: string;
  /** Params as validated with overrides masked, or what identifies the call. */
  params: Record<string, unknown>;
  started: number;
  result: ToolCallResult;
  /** The run's code; 0 for a successful call that ran nothing; 'error' when nothing ran. */
  code: number | 'error';
  clientName?: string;
  /** The sandbox the run was in (execute only). */
  sandbox?: 'default' | 'tool';
}

/** A finished call and how long it took, as observers (metrics) see it: unscrubbed, never logged. */
export interface RecordedCall {
  call: FinishedCall;
  durationMs: number;
}

export class AuditTrail {
  private readonly recorded = new Emitter<RecordedCall>();
  /** Fires once for every call recorded, after its entry is written. */
  readonly onDidRecord = this.recorded.event;

  constructor(
    private readonly sink: ((entry: AuditEntry) => void) | undefined,
    private readonly secrets: ServerSecrets,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Writes the entry of a finished call; never throws. */
  record(call: FinishedCall): void {
    const scrub = (t: string): string => scrubSecrets(t, this.secrets);
    const error = call.code === 'error' && call.result.isError ? call.result.text.split('\n')[0] : undefined;
    const client = clientLabel(call.clientName);
    const entry: AuditEntry = {
      at: call.started,
      user: call.principal.user,
      bucketKey: call.bucketKey,
      toolKey: scrub(boundText(call.what, MAX_AUDITED_KEY)),
      params: scrubStrings(call.params, scrub) as Record<string, unknown>,
      durationMs: this.clock.now() - call.started,
      code: call.code,
      ...(error ? { error: scrub(error) } : {}),
      ...(client !== undefined ? { client: scrub(client) } : {}),
      ...(call.sandbox ? { sandbox: call.sandbox } : {}),
    };
    try {
      this.sink?.(entry);
    } catch (e) {
      this.logger.error(`the audit line of ${entry.toolKey} could not be written: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.recorded.fire({ call, durationMs: entry.durationMs });
  }
}

/** The client's name, bounded before it is stored or logged. */
export function clientLabel(name: string | undefined): string | undefined {
  return name === undefined ? undefined : boundText(name, MAX_CLIENT_NAME);
}

// Params are at most MAX_PARAMS_DEPTH deep here (deeper ones were clipped).
function scrubStrings(v: unknown, scrub: (t: string) => string): unknown {
  if (typeof v === 'string') return scrub(v);
  if (Array.isArray(v)) return v.map((x) => scrubStrings(x, scrub));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, scrub(k), scrubStrings(x, scrub));
    return out;
  }
  return v;
}
