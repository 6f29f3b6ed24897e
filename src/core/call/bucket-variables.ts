// get_session and set_session: one variable of the caller's bucket read as
// JSON (or an identity key), or one written durably. Bad names and values
// are the caller's error result; nothing else changes.
import type { Principal } from '../identity';
import { isReservedKey } from '../identity';
import { SessionError } from '../session/errors';
import type { SessionStoreApi } from '../session/types';
import { validateVariableName } from '../session/variable-names';
import { fail, ok, type ToolCallResult } from '../tool-result';
import type { CallerCatalog } from './caller-catalog';

export class BucketVariables {
  constructor(
    private readonly store: SessionStoreApi,
    private readonly catalog: CallerCatalog,
  ) {}

  /** `fresh`: a bucket no one named, which a read must not bring into being. */
  async read(p: Principal, bucketKey: string, name: unknown, client: string | undefined, fresh = false): Promise<ToolCallResult> {
    const reserved = typeof name === 'string' && isReservedKey(name);
    const bad = reserved ? undefined : validateVariableName(name);
    if (bad) return fail(bad);
    return answerSessionErrors(async () => {
      // Reads write nothing now: the last use is queued and written in a batch.
      if (!fresh) this.store.touch(p.user, bucketKey, client);
      if (reserved) return ok(JSON.stringify(this.catalog.identity(p)[name]));
      const vars = await this.store.variables(p.user, bucketKey);
      const key = name as string;
      return ok(JSON.stringify(Object.prototype.hasOwnProperty.call(vars, key) ? vars[key] : null));
    });
  }

  async write(p: Principal, bucketKey: string, name: unknown, value: unknown, client: string | undefined): Promise<ToolCallResult> {
    const bad = validateVariableName(name);
    if (bad) return fail(bad);
    if (value === undefined) return fail("set_session needs a 'value' (any JSON value; use null to store null).");
    return answerSessionErrors(async () => {
      // One durable write; the last use and client name ride with it.
      await this.store.set(p.user, bucketKey, name as string, value, client);
      return ok(`Set '${name as string}'.`);
    });
  }
}

/** A store's refusal (a value too large, a bad value) as the caller's error result. */
async function answerSessionErrors(op: () => Promise<ToolCallResult>): Promise<ToolCallResult> {
  try {
    return await op();
  } catch (e) {
    if (e instanceof SessionError) return fail(e.message);
    throw e;
  }
}
