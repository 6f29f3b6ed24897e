// cache_ttl: successful outcomes of identical calls, in memory, LRU-bounded.
// The key covers the tool, the validated params and the caller's store (a
// tool's output may depend on MCC_CTX*), so two callers never share a hit.
import { createHash } from 'node:crypto';
import type { Clock } from '../host';
import type { RunOutcome } from '../tool-run/contract';
import { setOwn } from '../json/json-value';

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) setOwn(out, k, sortKeys((v as Record<string, unknown>)[k]));
    return out;
  }
  return v;
}

export function cacheKey(toolKey: string, params: Record<string, unknown>, store: Record<string, unknown>): string {
  const storeHash = createHash('sha256').update(stableJson(store)).digest('hex');
  return `${toolKey}\n${stableJson(params)}\n${storeHash}`;
}

interface Entry {
  outcome: RunOutcome;
  expiresAt: number;
}

export class ResultCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly clock: Clock,
  ) {}

  get(key: string): RunOutcome | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.clock.now() >= e.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map order is the recency order.
    this.entries.delete(key);
    this.entries.set(key, e);
    return { ...e.outcome };
  }

  set(key: string, outcome: RunOutcome, ttlSeconds: number): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { outcome: { ...outcome }, expiresAt: this.clock.now() + ttlSeconds * 1000 });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
