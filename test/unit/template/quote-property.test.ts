// Property: whatever a string holds, `{{ v | quote }}` delivers it to a real
// /bin/sh as one argument, byte for byte. 10,000 strings, a few hundred per
// shell run so the test takes seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { renderTemplate } from '../../../src/core/template/render';

const TEMPLATE = "printf '%s\\0' {{ v | quote }}";
const BATCH = 500;
const RUNS = 20;

// Lone surrogates have no UTF-8 form, so no shell could receive them.
function wellFormed(s: string): boolean {
  return Buffer.from(s, 'utf8').toString('utf8') === s;
}

// Pieces a shell would love to misread, mixed with arbitrary unicode.
const nasty = fc.constantFrom(
  "'", '"', '`', '$(', ')', '$', '${HOME}', '\\', '\n', '\r', '\t', ' ', '-', '--', '-n', '-e', '%s', '%', '*', '?', '~', '#', ';', '&', '|', '<', '>', '!', '{', '}', '[', ']', '=', 'é', '日本', '🙂', '\u00a0', '\u200b', "'\"'\"'",
);
const anyChar = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '\0' && wellFormed(c));
const value = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(fc.oneof(nasty, anyChar, fc.string({ maxLength: 4 }).filter((s) => !s.includes('\0'))), { maxLength: 12 }).map((a) => a.join('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !s.includes('\0') && wellFormed(s)) },
);

function runShell(script: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-s'], { env: { LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`sh exited ${code}: ${Buffer.concat(err).toString()}`));
    });
    child.stdin.end(script);
  });
}

/** Runs all values in one shell; returns the index of the first that did not arrive intact, or -1. */
async function firstMismatch(values: string[]): Promise<number> {
  const script = values.map((v) => renderTemplate(TEMPLATE, { v })).join('\n') + '\n';
  const out = await runShell(script);
  const want = Buffer.concat(values.map((v) => Buffer.concat([Buffer.from(v, 'utf8'), Buffer.from([0])])));
  if (out.equals(want)) return -1;
  let off = 0;
  for (let i = 0; i < values.length; i++) {
    const bytes = Buffer.from(values[i], 'utf8');
    if (!out.subarray(off, off + bytes.length).equals(bytes) || out[off + bytes.length] !== 0) return i;
    off += bytes.length + 1;
  }
  return values.length;
}

void test('quote: 10,000 random strings arrive through /bin/sh byte for byte', { timeout: 120_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(value, { minLength: BATCH, maxLength: BATCH }), async (values) => {
      const bad = await firstMismatch(values);
      assert.equal(bad, -1, `value #${bad} did not arrive intact: ${JSON.stringify(values[bad])}`);
    }),
    { numRuns: RUNS },
  );
});

void test('quote: hand-picked edge cases arrive intact', async () => {
  const edge = ['', ' ', '-', '--', '-n', '-e x', "'", "''", '"', '\\', '\\n', '\n', '\n\n', '$(id)', '`id`', '${PATH}', '$', '*', 'a b', "it's", '日本語', '🙂', '\r\n', '%s%d', 'x\ty'];
  assert.equal(await firstMismatch(edge), -1);
});
