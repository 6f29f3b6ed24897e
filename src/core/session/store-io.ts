// Every call the session store makes to its backend, in one place: a write
// is tracked until it settles (so a flush can wait for it) and any failure,
// read or write, becomes a SessionError that names the backend and says
// nothing was stored. Each call is a trace span (store-span.ts).
import type { Logger } from '../host';
import { SessionError } from './errors';
import { storeSpan, type StoreOperation } from '../trace/store-span';

export class StoreIO {
  private readonly inflight = new Set<Promise<unknown>>();
  /** The backend's kind (memory, sqlite, redis), as spans name it. */
  private readonly backend: string;

  constructor(
    /** The backend as logs name it. */
    private readonly description: string,
    private readonly logger: Logger,
  ) {
    this.backend = description.split(' ')[0].toLowerCase();
  }

  /** Runs a backend write, tracked for settled(); a failure becomes a SessionError for the caller. */
  async write<T>(id: string, op: () => Promise<T>, operation: StoreOperation = 'update'): Promise<T> {
    const p = storeSpan(operation, this.backend, op);
    this.inflight.add(p);
    try {
      return await p;
    } catch (e) {
      const err = new SessionError(`Could not save the session store (bucket ${id}, ${this.description}): ${errorText(e)}. Nothing was stored.`, {
        cause: e,
      });
      this.logger.error(err.message);
      throw err;
    } finally {
      this.inflight.delete(p);
    }
  }

  async read<T>(op: () => Promise<T>, operation: StoreOperation = 'get'): Promise<T> {
    try {
      return await storeSpan(operation, this.backend, op);
    } catch (e) {
      throw new SessionError(`Could not read the session store (${this.description}): ${errorText(e)}.`, { cause: e });
    }
  }

  /** Resolves once every write started so far (and any they start) has settled. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
