// A tool that runs longer than the client's request timeout completes when
// the client resets that timeout on progress, as agents' clients do. Real
// time (70 s), alone in its file so it runs beside the other test files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { REPO, connect, startServe, tempDir, text } from './serve-process';

const TOOLS = join(REPO, 'test', 'fixtures', 'progress', 'tools.yaml');

void test('a 70 s tool, mostly silent, outlives a 60 s request timeout reset by progress', async () => {
  const h = await startServe(['--tools', TOOLS, '--state', join(tempDir(), 's.json')]);
  try {
    const c = await connect(h);
    const seen: Progress[] = [];
    const started = Date.now();
    const r = (await c.callTool({ name: 'execute', arguments: { key: 'slow.silent', params: { seconds: 70 } } }, undefined, {
      timeout: 60_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => seen.push(p),
    })) as CallToolResult;
    const took = Date.now() - started;
    assert.ok(!r.isError, text(r));
    assert.equal(text(r), 'hello\nbye\n');
    assert.ok(took >= 70_000, `the run took ${took} ms`);
    // Heartbeats only: at least one per 5 s of silence.
    assert.ok(seen.length >= 14, `${seen.length} progress notifications`);
    assert.ok(seen.some((p) => p.message === 'hello'), 'the output line reached the client');
    await c.close();
  } finally {
    await h.stop();
  }
});
