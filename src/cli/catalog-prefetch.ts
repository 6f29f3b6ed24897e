// A first start's two largest costs are independent: compiling the CLI's
// megabyte of code and parsing its catalogs' YAML. `mcc serve` starts a
// worker thread (prefetch-worker.ts) that parses the catalogs while the main
// thread compiles and sets up the server; the main thread then reads them as
// parse-cache entries (core/catalog/prefetched-parses.ts). Anything the worker
// fails at is parsed on the main thread as before.
import { Worker } from 'node:worker_threads';

/** A catalog file's text, and the parse-cache form the worker made of it. */
export type PrefetchedParse = [text: string, stored: string];

/** Starts parsing the catalogs `mcc <argv>` will read; undefined for commands that read none. */
export function prefetchCatalogs(argv: readonly string[], workerFile: string): Promise<PrefetchedParse[]> | undefined {
  if (argv[0] !== 'serve' || argv.includes('--help') || argv.includes('-h')) return undefined;
  let worker: Worker;
  try {
    worker = new Worker(workerFile, { workerData: { argv: argv.slice(1) }, stdout: true, stderr: true });
  } catch {
    return undefined;
  }
  // Never what keeps the process alive, nor what it prints.
  worker.unref();
  return new Promise((resolve) => {
    const done = (parses: PrefetchedParse[]): void => {
      resolve(parses);
      void worker.terminate();
    };
    worker.once('message', (m: unknown) => done(Array.isArray(m) ? (m as PrefetchedParse[]) : []));
    worker.once('error', () => done([]));
    worker.once('exit', () => done([]));
  });
}
