// The pure parts of run feedback: progress pacing, heartbeats and clean
// messages (RunProgress), and run log messages (RunLog).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunProgress, type ProgressUpdate } from '../../../src/core/server/run-progress';
import { RunLog } from '../../../src/core/server/run-log';

const started = { type: 'started', runId: 'r', toolKey: 'ops.build', command: 'make', caller: { user: 'u', bucketKey: 'k' }, mode: 'pipe', at: 0 } as const;
const out = (data: string, stream: 'stdout' | 'stderr' = 'stdout') => ({ type: 'output', runId: 'r', stream, data }) as const;

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

void describe('RunProgress', () => {
  void test('keeps the latest clean lines within the cap, a long last line cut from its start', () => {
    const p = new RunProgress({ send: () => undefined, maxMessageChars: 20 });
    p.emit(out('\u001b[1mfirst\u001b[0m\nsecond\r\nthird 10%\rthird 99%\n\n'));
    assert.equal(p.latestLines(), 'second\nthird 99%');
    p.emit(out(`${'x'.repeat(50)}END\n`));
    assert.equal(p.latestLines(), `…${'x'.repeat(16)}END`);
    p.stop();
  });

  void test('paces output-driven updates, sends heartbeats when silent, and stops on exit', async () => {
    const c = clock();
    const sent: ProgressUpdate[] = [];
    const p = new RunProgress({ send: (u) => sent.push(u), clock: c, minGapMs: 40, heartbeatMs: 120, totalSeconds: () => 30 });
    p.emit(started);
    assert.deepEqual(sent, [{ progress: 0.001, total: 30, message: 'started ops.build' }]);
    p.emit(out('line 1\n'));
    await sleep(60);
    assert.equal(sent.length, 1, 'not before the gap');
    c.advance(50);
    await sleep(60);
    assert.equal(sent[1].message, 'line 1');
    c.advance(130);
    await sleep(60);
    assert.match(sent[2].message, /^ops\.build is still running \(0 s, no new output\)$/);
    for (let i = 1; i < sent.length; i++) assert.ok(sent[i].progress > sent[i - 1].progress);
    p.emit({ type: 'exited', runId: 'r', code: 0, durationMs: 1 });
    c.advance(1000);
    await sleep(60);
    assert.equal(sent.length, 3, 'nothing after the run ended');
  });

  void test('total is left out once progress passes it', async () => {
    const c = clock();
    const sent: ProgressUpdate[] = [];
    const p = new RunProgress({ send: (u) => sent.push(u), clock: c, heartbeatMs: 10, totalSeconds: () => 1 });
    p.emit(started);
    c.advance(2000);
    await sleep(300);
    p.stop();
    assert.equal(sent[0].total, 1);
    assert.equal(sent[sent.length - 1].total, undefined);
  });
});

void describe('RunLog', () => {
  void test('start and exit at info, stderr lines batched at warning, failures at error', async () => {
    const logs: string[] = [];
    const log = new RunLog((level, logger, data) => logs.push(`${level}|${logger}|${data}`));
    log.emit(started);
    log.emit(out('ignored stdout\n'));
    log.emit(out('\u001b[31mbad\u001b[0m one\nbad ', 'stderr'));
    log.emit(out('two\n', 'stderr'));
    await sleep(400);
    log.emit(out('partial', 'stderr'));
    log.emit({ type: 'exited', runId: 'r', code: 2, durationMs: 5, error: 'bad two' });
    assert.deepEqual(logs, [
      'info|ops.build|started ops.build (pipe)',
      'warning|ops.build|bad one\nbad two',
      'warning|ops.build|partial',
      'error|ops.build|ops.build exited with code 2 after 5 ms: bad two',
    ]);
  });

  void test('a flood of stderr is cut off after a budget of messages', async () => {
    const logs: string[] = [];
    const log = new RunLog((level, _l, data) => logs.push(`${level}|${data}`));
    log.emit(started);
    for (let i = 0; i < 120; i++) {
      log.emit(out(`line ${i}\n`, 'stderr'));
      // Each flush happens on exit or after the batching delay; force one per line.
      (log as unknown as { flush(final: boolean): void }).flush(false);
    }
    log.emit({ type: 'exited', runId: 'r', code: 0, durationMs: 1 });
    const warnings = logs.filter((l) => l.startsWith('warning|'));
    assert.equal(warnings.length, 101);
    assert.match(warnings[100], /more stderr of ops\.build is not forwarded/);
    await sleep(300);
  });
});
