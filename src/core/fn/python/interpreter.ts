// Finding a tool's Python interpreter: a bare name (python3) is looked up on
// the server's PATH, a path is taken relative to the catalog folder. The
// answer is absolute, so the tool's own environment (which may have no PATH)
// does not matter for starting it.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute interpreter path, or undefined when there is none. */
export function resolveInterpreter(python: string, catalogDir: string, baseEnv: NodeJS.ProcessEnv): string | undefined {
  if (python.includes('/') || python.includes('\\')) {
    const p = isAbsolute(python) ? python : resolve(catalogDir, python);
    return isExecutableFile(p) ? p : undefined;
  }
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (baseEnv.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const p = join(dir, python + ext);
      if (isExecutableFile(p)) return p;
    }
  }
  return undefined;
}

export function missingInterpreterMessage(python: string, baseEnv: NodeJS.ProcessEnv): string {
  if (python.includes('/') || python.includes('\\')) return `Python interpreter '${python}' does not exist or is not executable`;
  return `Python interpreter '${python}' is not on PATH (${baseEnv.PATH ? 'PATH=' + baseEnv.PATH : 'PATH is not set'}); set 'python:' to an interpreter path`;
}
