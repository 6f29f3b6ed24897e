// The `mcc` command (dist/cli.js): loads the CLI (dist/cli-main.js) through
// the code cache, and stores the cache once the server is up.
import { join } from 'node:path';
import { cacheDirFromEnv, privateDir } from '../core/cache/cache-dir';
import { loadWithCodeCache } from './code-cache';
import type { runCli } from './main';

const cacheDir = cacheDirFromEnv();
const codeDir = cacheDir ? privateDir(join(cacheDir, 'code')) : undefined;
const cli = loadWithCodeCache(join(__dirname, 'cli-main.js'), codeDir);
const run = (cli.exports as { runCli: typeof runCli }).runCli;
run(process.argv.slice(2), { onReady: () => cli.saveCache(), codeCache: cli.cache });
