// Runs every compiled *.test.js under out/test with node's test runner.
// Usage: node scripts/run-tests.mjs [subfolder-or-file-filter...]
//
// Files that mostly wait (a real 70 s run; see ALONGSIDE) run in a runner of
// their own beside the main one, so they do not hold one of its two slots.
// Their report follows the main one, then one line with the totals of both.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const ALONGSIDE = /long-run\.test\.js$/;

const filters = process.argv.slice(2);
// Every `mcc serve` the tests start keeps its caches (compiled code, parsed
// catalogs) in a folder of this run's own: empty at the start, so the first
// starts fill it and the later ones read it, and the user's cache untouched.
const ownCache = process.env.MCC_CACHE_DIR === undefined;
if (ownCache) process.env.MCC_CACHE_DIR = mkdtempSync(join(tmpdir(), 'mcc-test-cache-'));
const files = readdirSync('out/test', { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join('out/test', f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

/** Runs node --test on `list`; streams or buffers its report, and counts passes and failures. */
function runner(list, stream) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...list], { stdio: ['inherit', 'pipe', 'inherit'] });
    let report = '';
    child.stdout.on('data', (d) => {
      if (stream) process.stdout.write(d);
      report += d;
    });
    child.on('close', (code) => {
      const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
      resolve({ code: code ?? 1, report, pass: count('pass'), fail: count('fail') });
    });
  });
}

const alongside = files.filter((f) => ALONGSIDE.test(f));
const main = files.filter((f) => !ALONGSIDE.test(f));
const [a, m] = await Promise.all([alongside.length ? runner(alongside, main.length === 0) : undefined, main.length ? runner(main, true) : undefined]);
if (a && m) {
  process.stdout.write(`\n# tests run alongside: ${alongside.join(' ')}\n${a.report}`);
  process.stdout.write(`${a.pass + m.pass} passed, ${a.fail + m.fail} failed\n`);
}
if (ownCache) rmSync(process.env.MCC_CACHE_DIR, { recursive: true, force: true });
process.exit(Math.max(a?.code ?? 0, m?.code ?? 0));
