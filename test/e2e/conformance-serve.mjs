// The real `mcc serve` the conformance suites run against: the built CLI,
// token-less (the suites send no token), on a free port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Starts the built CLI with token-less access (the suite sends no token) on a free port. */
export async function startServe(dir) {
  const users = path.join(dir, 'users.yaml');
  fs.writeFileSync(users, 'users: []\nanonymous: true\n');
  const proc = spawn(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'serve', '--tools', path.join(repoRoot, 'tools.yaml'), '--users', users, '--state', path.join(dir, 's.json')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = await servedLine(proc);
  return { url: started.url, proc, stderr: started.stderr };
}

/** The JSON line `mcc serve` prints once it listens ({ url, token }), and its stderr so far; rejects if it exits first. */
export async function servedLine(proc) {
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const line = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    proc.once('exit', (code) => reject(new Error(`mcc serve exited with ${code}: ${err}`)));
  });
  return { ...JSON.parse(line), stderr: () => err };
}

