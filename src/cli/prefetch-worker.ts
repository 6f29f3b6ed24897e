// The worker thread of catalog-prefetch.ts (dist/catalog-prefetch.js): reads
// and parses the catalog files `mcc serve <argv>` names, through the parse
// cache (an entry found is passed on as it is; a file parsed is stored), and
// posts each file's text with its parse-cache form. It decides nothing: a bad
// argument or an unreadable file is the main thread's to report.
import { parentPort, workerData } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { parseServeArgs } from './args';
import { expandPaths } from '../core/catalog/catalog-files';
import { openParseCache } from '../core/cache/parse-cache';
import { storedParse } from '../core/catalog/yaml-cached';
import type { PrefetchedParse } from './catalog-prefetch';

async function prefetch(argv: string[]): Promise<PrefetchedParse[]> {
  const files = await expandPaths(parseServeArgs(argv).tools, []);
  const cache = openParseCache();
  const out: PrefetchedParse[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    const stored = text === undefined ? undefined : storedParse(text, cache);
    if (text !== undefined && stored !== undefined) out.push([text, stored]);
  }
  return out;
}

const { argv } = workerData as { argv: string[] };
prefetch(argv).then(
  (parses) => parentPort?.postMessage(parses),
  () => parentPort?.postMessage([]),
);
