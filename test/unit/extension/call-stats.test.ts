// The last minute's calls and failures per tool (call-stats-model.ts) and
// their text: the status menu's lines and the Show Metrics table (metrics-text.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CallStats, MAX_TOOLS, OTHER, failed } from '../../../src/extension/call-stats-model';
import { MENU_TOOLS, SHOW_METRICS_COMMAND, callSummary, metricsMarkdown, metricsMenuItems } from '../../../src/extension/metrics-text';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void; set: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms), set: (ms) => void (t = ms) };
}

test('a call failed when it was refused or its run ended with another code than 0', () => {
  assert.equal(failed({ code: 0 }), false);
  assert.equal(failed({ code: 1 }), true);
  assert.equal(failed({ code: 'error' }), true);
});

test('calls and failures per tool, the most called first, with the mean duration', () => {
  const c = clock();
  const stats = new CallStats(c.now);
  stats.record({ toolKey: 'get_session', code: 0, durationMs: 2 });
  stats.record({ toolKey: 'ops.deploy', code: 0, durationMs: 100 });
  c.advance(1500);
  stats.record({ toolKey: 'ops.deploy', code: 2, durationMs: 300 });
  stats.record({ toolKey: 'ops.deploy', code: 'error', durationMs: 2 });
  assert.deepEqual(stats.snapshot(), [
    { tool: 'ops.deploy', calls: 3, failures: 2, meanMs: 134 },
    { tool: 'get_session', calls: 1, failures: 0, meanMs: 2 },
  ]);
});

test('only the last 60 seconds count: older calls leave the window, and a tool without calls leaves the list', () => {
  const c = clock(0);
  const stats = new CallStats(c.now);
  stats.record({ toolKey: 'a', code: 0, durationMs: 1 });
  c.advance(30_000);
  stats.record({ toolKey: 'b', code: 1, durationMs: 1 });
  stats.record({ toolKey: 'a', code: 0, durationMs: 1 });
  c.advance(29_999);
  assert.deepEqual(stats.snapshot().map((s) => [s.tool, s.calls]), [['a', 2], ['b', 1]], 'at 59.999 s both seconds are in');
  c.advance(1);
  assert.deepEqual(stats.snapshot().map((s) => [s.tool, s.calls]), [['a', 1], ['b', 1]], 'at 60 s the first call is out');
  c.advance(30_000);
  assert.deepEqual(stats.snapshot(), []);
  assert.equal(stats.size, 0, 'nothing kept');
});

test('memory is bounded: one slot per tool and second, and at most MAX_TOOLS tools (the rest as one row)', () => {
  const c = clock(0);
  const stats = new CallStats(c.now);
  for (let s = 0; s < 600; s++) {
    c.set(s * 1000);
    for (let i = 0; i < 20; i++) stats.record({ toolKey: `t${i % 3}`, code: 0, durationMs: 1 });
  }
  assert.ok(stats.size <= 3 * 60, `slots: ${stats.size}`);
  assert.equal(stats.snapshot().reduce((n, s) => n + s.calls, 0), 20 * 60, 'exactly the last minute\'s calls');
  const many = new CallStats(clock().now);
  for (let i = 0; i < MAX_TOOLS + 50; i++) many.record({ toolKey: `invented-${i}`, code: 'error', durationMs: 0 });
  const rows = many.snapshot();
  assert.equal(rows.length, MAX_TOOLS);
  assert.deepEqual(rows[0], { tool: OTHER, calls: 51, failures: 51, meanMs: 0 });
});

test('a clock set back counts into the latest second instead of breaking the window', () => {
  const c = clock(100_000);
  const stats = new CallStats(c.now);
  stats.record({ toolKey: 'a', code: 0, durationMs: 1 });
  c.set(40_000);
  stats.record({ toolKey: 'a', code: 0, durationMs: 1 });
  assert.deepEqual(stats.snapshot().map((s) => s.calls), [2]);
  assert.equal(stats.size, 1);
});

test('the status menu: the last minute in all, the busiest tools, failures marked, each opening the table', () => {
  assert.deepEqual(metricsMenuItems([]), [{ label: '$(pulse) Last Minute', description: 'no calls', command: SHOW_METRICS_COMMAND }]);
  const rows = Array.from({ length: MENU_TOOLS + 2 }, (_, i) => ({ tool: `t${i}`, calls: 10 - i, failures: i === 1 ? 2 : 0, meanMs: 4 }));
  const items = metricsMenuItems(rows);
  assert.equal(items[0].description, `${rows.reduce((n, r) => n + r.calls, 0)} calls · 2 failed · 4.0 ms`);
  assert.deepEqual(items.slice(1, 3), [
    { label: '$(tools) t0', description: '10 calls · 0 failed · 4.0 ms', command: SHOW_METRICS_COMMAND },
    { label: '$(warning) t1', description: '9 calls · 2 failed · 4.0 ms', command: SHOW_METRICS_COMMAND },
  ]);
  assert.equal(items.length, 1 + MENU_TOOLS + 1);
  assert.deepEqual(items[items.length - 1], { label: '$(graph) Show Metrics', description: '2 more tools', command: SHOW_METRICS_COMMAND });
  assert.equal(callSummary({ calls: 1, failures: 0, meanMs: 1234.4 }), '1 call · 0 failed · 1234 ms');
});

test('the table: a row per tool and the total, columns aligned, nothing a tool key holds can break it', () => {
  const at = new Date(Date.UTC(2026, 11, 4, 9, 30, 5));
  const md = metricsMarkdown(
    [
      { tool: 'ops.deploy', calls: 3, failures: 2, meanMs: 134 },
      { tool: 'bad|key\nx', calls: 1, failures: 1, meanMs: 0.5 },
    ],
    at,
  );
  assert.equal(
    md,
    [
      '# MCC: calls in the last minute',
      '',
      'As of 2026-12-04 09:30:05 UTC. Run **MCC: Show Metrics** again to refresh.',
      '',
      '| tool         | calls | failures | mean duration |',
      '|--------------|------:|---------:|--------------:|',
      '| ops.deploy   |     3 |        2 |        134 ms |',
      '| bad\\|key\\\\nx |     1 |        1 |        0.5 ms |',
      '| (all tools)  |     4 |        3 |        101 ms |',
      '',
    ].join('\n'),
  );
  assert.match(metricsMarkdown([], at), /No calls in the last minute\./);
});

test('MCC: Show Metrics is contributed and registered', () => {
  const root = join(__dirname, '..', '..', '..', '..');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ command: string; title: string; category?: string }> } };
  const cmd = pkg.contributes.commands.find((c) => c.command === SHOW_METRICS_COMMAND);
  assert.deepEqual(cmd && `${cmd.category ?? ''}: ${cmd.title}`, 'MCC: Show Metrics');
  assert.match(readFileSync(join(root, 'src', 'extension', 'commands.ts'), 'utf8'), /registerCommand\(SHOW_METRICS_COMMAND,/);
});
