// Where the files that run function tools live. Bundled (dist/cli.js,
// dist/extension.js) they sit beside the bundle, built or copied there by
// scripts/build.mjs; compiled by tsc (out/src/core/fn/...), the worker is
// compiled beside this file and the Python runner is read from the source tree.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

function findAsset(fileName: string, sourceFolder: string): string {
  const candidates = [
    join(__dirname, fileName),
    join(__dirname, sourceFolder, fileName),
    // out/src/core/fn -> repository root -> src/core/fn/<folder>
    resolve(__dirname, '..', '..', '..', '..', 'src', 'core', 'fn', sourceFolder, fileName),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`cannot find ${fileName}; looked in ${candidates.join(', ')}`);
  return found;
}

let workerScript: string | undefined;
let pythonRunner: string | undefined;

/** The worker thread script of JavaScript fn tools. */
export function workerScriptPath(): string {
  return (workerScript ??= findAsset('worker.js', 'js'));
}

/** The stdlib-only Python runner script (introspect and execute). */
export function pythonRunnerPath(): string {
  return (pythonRunner ??= findAsset('mcc_runner.py', 'python'));
}
