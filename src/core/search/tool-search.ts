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
  tools: readonly ToolDef[];
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
// user), so identity of the elements, not of the array, decides reuse.
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
  const hit = cache.findIndex((c) => c.tools === tools || sameTools(c.tools, tools));
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
  cache.unshift({ tools: [...tools], index });
  if (cache.length > MAX_CACHED) cache.pop();
  return index;
}

/** Best first; an empty query or no hits gives []. Hits scoring below minScore are dropped. */
export function searchTools(tools: readonly ToolDef[], query: string, minScore?: number): ToolHit[] {
  if (query.trim() === '' || tools.length === 0) return [];
  const index = indexFor(tools);
  const results = index.search(query, {
    boost: { name: 3, key: 2, description: 1, params: 1 },
    prefix: (term) => term.length >= 2,
    fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
    weights: { prefix: 0.5, fuzzy: 0.3 },
    combineWith: 'OR',
  });
  const hits: ToolHit[] = [];
  for (const r of results) {
    const tool = tools[r.id as number];
    if (!tool) continue;
    if (minScore !== undefined && r.score < minScore) continue;
    hits.push({ tool, score: r.score });
  }
  return hits;
}
