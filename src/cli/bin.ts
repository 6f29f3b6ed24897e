// The `mcc` command (dist/cli.js): loads the CLI (dist/cli-main.js) through
// the code cache, and stores the cache once the server is up. The catalogs
// are parsed on a worker thread meanwhile (catalog-prefetch.ts).
import { join } from 'node:path';
import { cacheDirFromEnv, privateDir } from '../core/cache/cache-dir';
import { loadWithCodeCache } from './code-cache';
import { prefetchCatalogs } from './catalog-prefetch';
import type { runCli } from './main';

const argv = process.argv.slice(2);
const prefetched = prefetchCatalogs(argv, join(__dirname, 'catalog-prefetch.js'));
const cacheDir = cacheDirFromEnv();
const codeDir = cacheDir ? privateDir(join(cacheDir, 'code')) : undefined;
const cli = loadWithCodeCache(join(__dirname, 'cli-main.js'), codeDir);
const run = (cli.exports as { runCli: typeof runCli }).runCli;
run(argv, { onReady: () => cli.saveCache(), codeCache: cli.cache, ...(prefetched ? { prefetched } : {}) });
