// The session store's metrics, measured at the one place every read and
// write passes: the storage backend (SQLite, Redis, memory) under the store.
// Wrapping the backend times what the backend really did (a write queued
// in the store's touch queue is timed when it is written), and an error
// of any operation is counted, whatever the store then does with it.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { SessionStorage } from '../session/types';

/** The backend's operations, the values of the label `operation`. */
export type StoreOperation = 'get' | 'list' | 'change' | 'touch' | 'remove' | 'sweep' | 'import' | 'close';

// A SQLite read is tens of microseconds, a Redis round trip a fraction of a
// millisecond, a durable SQLite write a few milliseconds.
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class StoreMetrics {
  private readonly latency: Histogram<'operation'>;
  private readonly errors: Counter<'operation'>;

  constructor(registry: Registry) {
    this.latency = new Histogram({
      name: 'mcc_store_operation_duration_seconds',
      help: 'Time the session store backend took for one operation, failed ones included',
      labelNames: ['operation'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.errors = new Counter({
      name: 'mcc_store_errors_total',
      help: 'Session store backend operations that failed (unreachable Redis, a full disk, a locked file)',
      labelNames: ['operation'],
      registers: [registry],
    });
  }

  /** Runs one backend operation, timing it and counting its failure. */
  async time<T>(operation: StoreOperation, run: () => Promise<T>): Promise<T> {
    const end = this.latency.startTimer({ operation });
    try {
      return await run();
    } catch (e) {
      this.errors.inc({ operation });
      throw e;
    } finally {
      end();
    }
  }

  /** The backend with every operation timed; it behaves exactly as `inner` does. */
  wrap(inner: SessionStorage): SessionStorage {
    return {
      get description() {
        return inner.description;
      },
      get: (id) => this.time('get', () => inner.get(id)),
      list: () => this.time('list', () => inner.list()),
      change: (id, change) => this.time('change', () => inner.change(id, change)),
      touch: (touches) => this.time('touch', () => inner.touch(touches)),
      remove: (id) => this.time('remove', () => inner.remove(id)),
      sweep: (now, ttlMs) => this.time('sweep', () => inner.sweep(now, ttlMs)),
      importIfAbsent: (id, bucket, ttlMs, now) => this.time('import', () => inner.importIfAbsent(id, bucket, ttlMs, now)),
      close: () => this.time('close', () => inner.close()),
    };
  }
}
