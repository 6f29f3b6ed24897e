// `mcc check` as CI runs it: the built dist/cli.js in a catalog's folder,
// its output read line by line and its exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, FIXTURES, tempDir } from './serve-process';

interface Checked {
  code: number | null;
  stdout: string;
  lines: string[];
}

function check(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Checked> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CLI, 'check', ...args], { cwd, env: { ...process.env, MCC_CACHE_DIR: 'off', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`mcc check exited ${code}; stderr:\n${stderr}`));
      else resolve({ code, stdout, lines: stdout.trimEnd().split('\n') });
    });
  });
}

function folder(files: Record<string, string>): string {
  const dir = tempDir('mcc-check-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const BAD = [
  'tools:', //              1
  '  - name: fine', //      2
  '    exec: echo ok', //   3
  '  - name: bad tool', //  4: a name with a space
  '    exec: echo x', //    5
  '  - name: neither', //   6: no exec, curl or fn
  '    command: echo', //   7: unknown field (warning)
  '',
].join('\n');

void test('a good catalog and users file: exit 0, no problems, the summary counts tools and files', async () => {
  const r = await check(['--tools', join(FIXTURES, 'tools.yaml'), '--users', join(FIXTURES, 'users.yaml'), '--user', 'owner'], FIXTURES, { BOB_TOKEN_SHA: 'a'.repeat(64) });
  assert.equal(r.code, 0, r.stdout);
  assert.deepEqual(r.lines, ['mcc check: 10 tools in 1 file; 0 errors, 0 warnings']);
});

void test('errors and warnings each on their line as file:line: severity: message; exit 1', async () => {
  const dir = folder({ 'tools.yaml': BAD });
  const r = await check([], dir);
  assert.equal(r.code, 1);
  assert.match(r.lines[0], /^tools\.yaml:4: error: tool 'bad tool': invalid tool name/);
  assert.match(r.lines[1], /^tools\.yaml:6: error: tool 'neither': needs exactly one of exec, curl or fn$/);
  assert.match(r.lines[2], /^tools\.yaml:7: warning: tool 'neither': unknown field 'command'/);
  assert.equal(r.lines[3], 'mcc check: 1 tool in 1 file; 2 errors, 1 warning');
});

void test('warnings alone exit 0', async () => {
  const dir = folder({ 'tools.yaml': 'tools:\n  - name: a\n    exec: echo a\n    colour: red\n' });
  const r = await check(['tools.yaml'], dir);
  assert.equal(r.code, 0);
  assert.match(r.lines[0], /^tools\.yaml:4: warning: tool 'a': unknown field 'colour'/);
  assert.equal(r.lines[1], 'mcc check: 1 tool in 1 file; 0 errors, 1 warning');
});

void test("serve's command line is accepted; positional paths add to --tools; a missing path is an error", async () => {
  const dir = folder({ 'a.yaml': 'tools:\n  - name: a\n    exec: echo a\n', 'b.yaml': 'tools:\n  - name: b\n    exec: echo b\n' });
  const ok = await check(['--tools', 'a.yaml', 'b.yaml', '--port', '0', '--store', 'memory:', '--expose', 'both'], dir);
  assert.equal(ok.code, 0, ok.stdout);
  assert.deepEqual(ok.lines, ['mcc check: 2 tools in 2 files; 0 errors, 0 warnings']);
  const missing = await check(['a.yaml', 'gone.yaml'], dir);
  assert.equal(missing.code, 1);
  assert.equal(missing.lines[0], "gone.yaml:1: error: catalog path 'gone.yaml': no such file or folder");
});

void test('a function tool is resolved as serve resolves it: a missing Python module is an error at its line', async () => {
  const dir = folder({ 'tools.yaml': 'tools:\n  - name: a\n    exec: echo a\n  - fn: no_such_module_mcc:run\n' });
  const r = await check([], dir);
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.lines[0], /^tools\.yaml:4: error: .*no_such_module_mcc/);
});

void test('users file: a problem at its line; an owner the file also defines is an error', async () => {
  const dir = folder({
    'tools.yaml': 'tools:\n  - name: a\n    exec: echo a\n',
    'users.yaml': 'users:\n  - user: alice\n    token: alice-token-0123456789\n  - user: bob\n    token_sha256: abc\n',
    'alice.yaml': 'users:\n  - user: alice\n    token: alice-token-0123456789\n    colour: red\n',
  });
  const bad = await check(['--users', 'users.yaml', '--user', 'owner'], dir);
  assert.equal(bad.code, 1);
  assert.equal(bad.lines[0], "users.yaml:4: error: users[1]: 'token_sha256' must be 64 hex digits");
  const clash = await check(['--users', 'alice.yaml', '--user', 'alice'], dir);
  assert.equal(clash.code, 1);
  assert.match(clash.lines[0], /^alice\.yaml:1: error: the users file defines 'alice', which is the owner's name/);
  assert.match(clash.lines[1], /^alice\.yaml:2: warning: users\[0\]: unknown key 'colour' ignored/);
});
