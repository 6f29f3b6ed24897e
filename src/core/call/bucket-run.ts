// A tool run inside the caller's bucket: on a fresh read of it (identity on
// top), and, for function tools that take `context`, with the context they
// return written back. Such tools run one at a time per bucket in this
// server, so each write-back builds on the one before; across servers the
// store refuses a write-back over a key another call changed since the
// read, and the note tells the caller.
import type { ToolDef } from '../catalog/types';
import type { Logger } from '../host';
import type { Principal } from '../identity';
import { logField } from '../log-text';
import { SessionError } from '../session/errors';
import type { SessionStoreApi } from '../session/types';
import type { RunContext, RunOutcome, ToolRuns } from '../tool-run/contract';
import type { CallerCatalog } from './caller-catalog';

export interface BucketRunResult {
  outcome: RunOutcome;
  /** Told to the caller after the answer when the tool's context changes were not saved. */
  note: string;
}

export class BucketRun {
  constructor(
    private readonly store: SessionStoreApi,
    private readonly catalog: CallerCatalog,
    private readonly logger: Logger,
  ) {}

  /** The store as a tool sees it: variables, then identity on top (never from storage). */
  async view(p: Principal, bucketKey: string): Promise<Record<string, unknown>> {
    const vars = await this.store.variables(p.user, bucketKey);
    return { ...vars, ...this.catalog.identity(p) };
  }

  run(p: Principal, bucketKey: string, tool: ToolDef, runs: ToolRuns, params: Record<string, unknown>, run: Omit<RunContext, 'store'>): Promise<BucketRunResult> {
    const writesBack = tool.kind === 'fn' && tool.takesContext;
    const inBucket = async (): Promise<BucketRunResult> => {
      const snapshot = await this.view(p, bucketKey);
      const outcome = await runs.run(tool, params, { ...run, store: snapshot });
      const note = writesBack && outcome.contextOut ? await this.writeBack(p, bucketKey, tool.key, snapshot, outcome.contextOut) : '';
      return { outcome, note };
    };
    return writesBack ? this.store.exclusive(p.user, bucketKey, inBucket) : inBucket();
  }

  /** Applies a tool's context; returns a note for the caller when its changes were not saved. */
  private async writeBack(p: Principal, bucketKey: string, key: string, snapshot: Record<string, unknown>, returned: Record<string, unknown>): Promise<string> {
    try {
      const wb = await this.store.writeBack(p.user, bucketKey, snapshot, returned);
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
}
