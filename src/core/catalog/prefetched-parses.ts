// Catalog files parsed ahead of time (by the CLI's prefetch worker) as a
// layer over the parse cache: each entry answers once, for the text it was
// made from; everything else, and every write, goes to the cache below.
import type { ParseCache } from '../cache/parse-cache';
import { parseCacheKey } from './yaml-cached';

export function withPrefetchedParses(below: ParseCache | undefined, parses: ReadonlyArray<readonly [text: string, stored: string]>): ParseCache | undefined {
  if (parses.length === 0) return below;
  // Keyed here, by this build's key of the text, so a worker built
  // differently can cost a miss, never a wrong answer.
  const ahead = new Map(parses.map(([text, stored]) => [parseCacheKey(text), stored]));
  return {
    get(key) {
      const stored = ahead.get(key);
      // Once used, the parse is the catalog's: holding it would only cost memory.
      if (stored !== undefined) ahead.delete(key);
      return stored ?? below?.get(key);
    },
    set(key, value) {
      below?.set(key, value);
    },
  };
}
