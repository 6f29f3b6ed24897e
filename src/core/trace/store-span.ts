// The span of one session store operation on its backend (a bucket read or
// change, a last-use batch, a sweep): the operation and the backend's kind,
// never a bucket id (it holds the user's name), variable name or value.
import { inSpan, tracing } from './tracing';

export type StoreOperation = 'get' | 'list' | 'update' | 'remove' | 'touch' | 'sweep';

export function storeSpan<T>(operation: StoreOperation, backend: string, op: () => Promise<T>): Promise<T> {
  if (!tracing().enabled) return op();
  return inSpan(`store ${operation}`, { attributes: { 'db.operation.name': operation, 'db.system.name': backend } }, op);
}
