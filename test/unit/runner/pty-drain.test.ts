// A run in a pseudo-terminal returns all of its output, however fast the tool
// exits: on Linux the kernel could drop the unread tail of a pty when its
// last process exits (about one run in ten with the CPU busy, before the
// drain script). And the end token is never part of the output.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChild, type PtyModule } from '../../../src/core/runner/run-child';
import { TokenScanner } from '../../../src/core/runner/token-scanner';
import { cleanTerminalText } from '../../../src/core/runner/terminal-text';
import { tempDir } from './helpers';

describe('TokenScanner', () => {
  test('passes output on, drops the token and what follows it, across chunk borders', () => {
    const s = new TokenScanner('mcc-end-42');
    const parts = ['abc mcc', '-e', 'nd-4', 'x still output ', 'mcc-e', 'nd-42', 'echo of the ack\n'];
    const out = parts.map((p) => s.feed(p)).join('');
    assert.equal(out, 'abc mcc-end-4x still output ');
    assert.equal(s.found, true);
    assert.equal(s.flush(), '');
  });

  test('a run that ends without the token keeps what was held back', () => {
    const s = new TokenScanner('mcc-end-42');
    assert.equal(s.feed('partial mcc-en'), 'partial ');
    assert.equal(s.found, false);
    assert.equal(s.flush(), 'mcc-en');
  });
});

describe('pty runs are read to the end', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pty = require('node-pty') as PtyModule;
  const t = tempDir();
  const file = join(t.dir, 'six-kib.txt');
  const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(52)}`);
  const hogs: ChildProcess[] = [];
  before(() => {
    writeFileSync(file, lines.join('\n') + '\n');
    // Both cores busy, as on a loaded CI machine: that is when the tail was lost.
    for (let i = 0; i < 2; i++) hogs.push(spawn('/bin/sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  });
  after(() => {
    for (const h of hogs) h.kill('SIGKILL');
    t.cleanup();
  });

  const run = (command: string): ReturnType<typeof runChild> =>
    runChild({ mode: 'pty', pty, args: ['-c', command], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, maxOutputBytes: 1 << 20, killGraceMs: 500, signal: new AbortController().signal });

  test('200 runs of a tool that prints 6 KiB at once and exits: every one whole', async () => {
    const incomplete: number[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await run(`cat '${file}'`);
      assert.equal(r.code, 0);
      if (cleanTerminalText(r.stdout.text()) !== lines.join('\n') + '\n') incomplete.push(i);
    }
    assert.deepEqual(incomplete, [], `runs with output lost: ${incomplete.length} of 200`);
  });

  // The next two after a helper session's test of the same bug (seq writes ~16 KB in a few writes, then exits).
  const SEQ = Array.from({ length: 3000 }, (_, i) => `${i + 1}\r\n`).join('');
  const streamedRun = async (command: string): Promise<{ out: string; streamed: string; code: number | null }> => {
    let streamed = '';
    const r = await runChild({
      mode: 'pty', pty, args: ['-c', command], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, maxOutputBytes: 1 << 20, killGraceMs: 500,
      signal: new AbortController().signal, onOutput: (_s, d) => (streamed += d),
    });
    return { out: r.stdout.text(), streamed, code: r.code };
  };

  test('runs side by side each get all of their own output, kept and streamed alike', async () => {
    for (let round = 0; round < 4; round++) {
      const runs = await Promise.all(Array.from({ length: 6 }, () => streamedRun('seq 1 3000')));
      runs.forEach((r, i) => {
        assert.equal(r.code, 0);
        assert.ok(r.out === SEQ, `round ${round}, run ${i}: ${r.out.length} of ${SEQ.length} characters`);
        assert.ok(r.streamed === SEQ, `round ${round}, run ${i}: ${r.streamed.length} characters streamed`);
      });
    }
  });

  test('the output is whole also when a background child keeps the terminal open', async () => {
    for (let i = 0; i < 3; i++) {
      // It ignores the SIGHUP the end of the session leader sends; the run's end kills its group.
      const r = await streamedRun("(trap '' HUP; exec /bin/sleep 30) & seq 1 3000");
      assert.ok(r.out === SEQ, `run ${i}: ${r.out.length} of ${SEQ.length} characters`);
    }
  });

  test('exit codes, signals and output without a final newline are as the tool left them', async () => {
    const plain = await run('printf abc');
    assert.equal(plain.stdout.text(), 'abc');
    assert.equal((await run('exit 3')).code, 3);
    const killed = await run('echo before; kill -9 $$');
    assert.equal(killed.signal, 9);
    assert.equal(cleanTerminalText(killed.stdout.text()), 'before\n', 'no shell note about the kill');
    const eof = await run('cat; echo got-eof');
    assert.equal(cleanTerminalText(eof.stdout.text()), 'got-eof\n');
  });
});
