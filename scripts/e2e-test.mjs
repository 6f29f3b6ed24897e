#!/usr/bin/env node
// Sets up the e2e toolchain (instant when cached) and runs the suites in a
// real VS Code. One suite at a time: each starts code-server and Chromium,
// and the machines have 2 cores.
// Usage: node scripts/e2e-test.mjs [test/e2e/some.e2e.mjs ...]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const setup = spawnSync(process.execPath, [path.join(root, 'scripts', 'e2e-setup.mjs')], { stdio: 'inherit' });
if (setup.status !== 0) process.exit(setup.status ?? 1);

const files = process.argv.length > 2
  ? process.argv.slice(2)
  : readdirSync(path.join(root, 'test', 'e2e')).filter((f) => f.endsWith('.e2e.mjs')).sort().map((f) => path.join('test', 'e2e', f));
if (!files.length) {
  console.error('no test/e2e/*.e2e.mjs files');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
