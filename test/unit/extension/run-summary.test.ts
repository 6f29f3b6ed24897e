// What a Run Tool notification says: for a failure, why (its first line),
// not "failed: 5 lines". The failures come from the real runtime running
// real processes, so the summary follows what the runners actually report.
import { test, describe, before, after } from 'node:test';
import { MINIMAL_SECRETS } from '../../../src/core/secrets';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../../../src/core/catalog/load';
import type { Principal } from '../../../src/core/identity';
import { openRuntime, type OpenedRuntime } from '../../../src/core/open-runtime';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { resultSummary } from '../../../src/extension/run-summary';

const OWNER: Principal = { user: 'owner', email: '', groups: ['admin'], grants: [] };
const CATALOG = `
groups: [demo]
tools:
  - name: slow
    description: sleeps past its timeout
    timeout: 1
    env_passthrough: true
    pty: false
    exec: |
      echo started; echo "working" >&2; sleep 5
  - name: broken
    description: fails with a message
    pty: false
    exec: |
      echo "line one"; echo "grep: no such file: x.txt" >&2; echo "more detail" >&2; exit 2
  - name: quiet_fail
    pty: false
    exec: exit 3
  - name: many
    pty: false
    exec: printf 'a\\nb\\nc\\n'
  - name: one
    pty: false
    exec: echo just this
`;

void describe('run result summary', () => {
  let dir: string;
  let opened: OpenedRuntime;
  const run = (name: string, params: Record<string, unknown> = {}) => opened.runtime.calls.execute(OWNER, 'k', `demo.${name}`, params);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcc-summary-'));
    writeFileSync(join(dir, 'tools.yaml'), CATALOG);
    opened = await openRuntime({ storage: new MemoryStorage(), sweepIntervalMs: 0, execMode: 'pipe', secrets: MINIMAL_SECRETS });
    const catalog = await loadCatalog([join(dir, 'tools.yaml')]);
    assert.deepEqual(catalog.diagnostics.filter((d) => d.severity === 'error'), []);
    opened.runtime.catalog.set(catalog);
  });

  after(async () => {
    await opened.runtime.shutdown();
    opened.store.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  void test('a timed-out run says what stopped it', async () => {
    const r = await run('slow');
    assert.equal(r.isError, true);
    assert.ok(r.text.split('\n').length > 1, 'the full result is several lines');
    assert.equal(resultSummary(r), 'timeout after 1s');
  });

  void test('a failed run says its exit code and its first line of error output', async () => {
    const r = await run('broken');
    assert.equal(resultSummary(r), 'exit 2: grep: no such file: x.txt');
    assert.equal(resultSummary(await run('quiet_fail')), 'exit 3');
  });

  void test('a refused call says the runtime\'s reason', async () => {
    const r = await run('many', { nope: 1 });
    assert.equal(r.isError, true);
    assert.equal(resultSummary(r), r.text.split('\n')[0].trim());
    assert.match(resultSummary(await run('no_such_tool')), /Unknown tool 'demo\.no_such_tool'/);
  });

  void test('a success shows its one line, or how many lines there are', async () => {
    assert.equal(resultSummary(await run('one')), 'just this');
    assert.equal(resultSummary(await run('many')), '3 lines');
    assert.equal(resultSummary({ isError: false, text: '\n' }), '(no output)');
    assert.equal(resultSummary({ isError: true, text: 'x'.repeat(500) }).length, 200);
  });
});
