// Stopping Python fn tools: cancel and shutdown end the runner's whole
// process group; mem_mb is a Unix limit on the interpreter.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../../src/core/runner/process-tree';
import { call, param, pyTool, keptFn } from './helpers';

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('stopping Python fn tools', () => {
  const env = { ...process.env };
  // sleep must be found by the tool: pass the server's PATH through.
  const tool = pyTool('fnpkg.tools:forever_with_child', { envPassthrough: true, params: [param('pidfile')] });

  for (const how of ['cancel', 'dispose'] as const) {
    test(`${how} kills the interpreter and the child it started`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcc-fn-stop-'));
      const ex = keptFn({ baseEnv: env });
      try {
        const pidfile = join(dir, 'pids');
        const abort = new AbortController();
        const running = ex.run(tool, { pidfile }, call(undefined, abort.signal).ctx);
        await waitFor(() => existsSync(pidfile) && readFileSync(pidfile, 'utf8').includes(' '), 15_000);
        const pids = readFileSync(pidfile, 'utf8').split(' ').map(Number);
        if (how === 'cancel') abort.abort();
        else await ex.dispose();
        const r = await running;
        assert.equal(r.code, -1);
        assert.match(r.stderr, how === 'cancel' ? /cancelled/ : /shutting down/);
        await waitFor(() => !pids.some(isAlive), 10_000);
      } finally {
        await ex.dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('mem_mb limits the interpreter: MemoryError, explained', async () => {
    const ex = keptFn();
    try {
      const r = await ex.run(pyTool('fnpkg.tools:hog', { limits: { mem_mb: 300 } }), {}, call().ctx);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /MemoryError/);
      assert.match(r.stderr, /resource limit hit: memory/);
    } finally {
      await ex.dispose();
    }
  });
});
