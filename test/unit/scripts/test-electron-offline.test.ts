// `npm run test:electron` downloads a desktop VS Code. Where it cannot, it
// must stop with one line saying why (exit 2), not a stack trace. The
// download goes through a proxy on a dead loopback port, so this runs the
// same with or without internet, and never downloads anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..', '..');

void test('test:electron without a way to download VS Code stops with one line and exit code 2', () => {
  // A fresh cwd: no .vscode-test cache that test-electron could fall back to.
  const cwd = mkdtempSync(join(tmpdir(), 'mcc-electron-offline-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_proxy: 'http://127.0.0.1:9', npm_config_https_proxy: 'http://127.0.0.1:9' };
    delete env.MCC_VSCODE_EXECUTABLE;
    delete env.VSCODE_VERSION;
    const r = spawnSync(process.execPath, [join(root, 'test', 'e2e', 'electron', 'run.mjs')], { cwd, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, `exit ${r.status}; stderr: ${r.stderr}`);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `more than one line:\n${r.stderr}`);
    assert.match(lines[0], /^test:electron: cannot download VS Code stable \(ECONNREFUSED .*\): it needs internet access; offline, `npm run test:e2e` runs the same checks/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
