// Keyword search over catalog tools (key, name, description, params) with
// minisearch: BM25 ranking, prefix matching and light fuzzy matching. An
// index is built per tool set and reused while the same tools come back.
import MiniSearch from 'minisearch';
import type { ToolDef } from '../catalog/types';

export interface ToolHit {
  tool: ToolDef;
  score: number;
}

interface IndexedSet {
  /** A copy of the tools indexed (the array passed in may change later). */
  tools: readonly ToolDef[];
  /** The array passed in, when frozen: the same array again is a hit without comparing. */
  frozen?: readonly ToolDef[];
  index: MiniSearch<SearchDoc>;
}

interface SearchDoc {
  id: number;
  key: string;
  name: string;
  description: string;
  params: string;
}

// Callers often pass a fresh array of the same tool objects (filtered per
// user), so identity of the elements, not of the array, decides reuse; the
// runtime passes the same frozen array for as long as the catalog stands.
const MAX_CACHED = 16;
const cache: IndexedSet[] = [];

function sameTools(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function tokenize(text: string): string[] {
  return text.split(/[^\p{L}\p{N}_]+/u).filter((t) => t !== '');
}

/** A compound word is indexed whole and by its parts: count_lines, getUser. */
function processTerm(term: string): string[] {
  const parts = term
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2')
    .split('_')
    .filter((p) => p !== '')
    .map((p) => p.toLowerCase());
  const whole = term.toLowerCase().replace(/^_+|_+$/g, '');
  return [...new Set([whole, ...parts])].filter((t) => t !== '');
}

function toDoc(tool: ToolDef, id: number): SearchDoc {
  const params = tool.params
    .filter((p) => !p.hasOverride)
    .map((p) => `${p.name} ${p.description ?? ''}`)
    .join(' ');
  return { id, key: tool.key, name: tool.name, description: tool.description, params };
}

function indexFor(tools: readonly ToolDef[]): MiniSearch<SearchDoc> {
  let hit = cache.findIndex((c) => c.frozen === tools);
  if (hit < 0) hit = cache.findIndex((c) => sameTools(c.tools, tools));
  if (hit >= 0) {
    const [entry] = cache.splice(hit, 1);
    if (entry) {
      cache.unshift(entry);
      return entry.index;
    }
  }
  const index = new MiniSearch<SearchDoc>({
    fields: ['key', 'name', 'description', 'params'],
    tokenize,
    processTerm,
  });
  index.addAll(tools.map(toDoc));
  const frozen = Object.isFrozen(tools);
  cache.unshift({ tools: frozen ? tools : [...tools], ...(frozen ? { frozen: tools } : {}), index });
  if (cache.length > MAX_CACHED) cache.pop();
  return index;
}

/** Hits returned when the caller names no limit, and the most it may ask for. */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;
/** Shorter query words match whole words only: "ls" must not match every "list…". */
export const MIN_PREFIX_LENGTH = 3;
const MIN_FUZZY_LENGTH = 5;

// Words that say nothing about which tool is meant; dropped from a query that
// has other words, so "list the pods" ranks by "list" and "pods".
const STOP_WORDS = new Set(['a', 'an', 'and', 'for', 'from', 'in', 'into', 'of', 'on', 'or', 'the', 'to', 'with', 'my', 'me', 'i', 'all', 'some']);

export interface SearchOptions {
  /** Hits scoring below this are dropped. */
  minScore?: number;
  /** At most this many hits (default 10, at most 100). */
  limit?: number;
}

export interface SearchResult {
  /** Best first, at most `limit`. */
  hits: ToolHit[];
  /** How many tools matched (before the limit). */
  total: number;
}

/** Folds BM25 (0…∞) into [0, 1), so it orders hits only within one count of matched words. */
const strength = (bm25: number): number => bm25 / (bm25 + 10);

/** The query's words, without stop words unless it has nothing else (minisearch processes them). */
function queryWords(query: string): string[] {
  const words = [...new Set(tokenize(query))];
  const meaningful = words.filter((w) => !STOP_WORDS.has(w.toLowerCase()));
  return meaningful.length > 0 ? meaningful : words;
}

/**
 * Best first: a tool matching more of the query's words ranks above one that
 * matches fewer (however strongly), so one tool that has every word beats a
 * dozen near-duplicates that share two; BM25 orders tools that match as many.
 * A hit's score says both: its whole part is how many query words matched,
 * its fraction how strongly. An empty query or no hits gives no hits.
 */
export function searchTools(tools: readonly ToolDef[], query: string, opts: SearchOptions = {}): SearchResult {
  const words = queryWords(query);
  if (words.length === 0 || tools.length === 0) return { hits: [], total: 0 };
  const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? DEFAULT_SEARCH_LIMIT)), MAX_SEARCH_LIMIT);
  const results = indexFor(tools).search(words.join(' '), {
    boost: { name: 3, key: 2, description: 1, params: 1 },
    prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
    fuzzy: (term) => (term.length >= MIN_FUZZY_LENGTH ? 0.2 : false),
    weights: { prefix: 0.5, fuzzy: 0.3 },
    combineWith: 'OR',
  });
  const ranked: Array<{ id: number; score: number }> = [];
  for (const r of results) {
    const score = new Set(r.queryTerms).size + strength(r.score);
    if (opts.minScore === undefined || score >= opts.minScore) ranked.push({ id: r.id as number, score });
  }
  ranked.sort((a, b) => b.score - a.score);
  const hits: ToolHit[] = [];
  for (const r of ranked) {
    if (hits.length === limit) break;
    const tool = tools[r.id];
    if (tool) hits.push({ tool, score: r.score });
  }
  return { hits, total: ranked.length };
}
