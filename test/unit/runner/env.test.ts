import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildToolEnv } from '../../../src/core/runner/env';
import { ToolInputError } from '../../../src/core/runner/errors';
import { ExecExecutor } from '../../../src/core/runner/exec-executor';
import { ALICE, FIXTURES, HOST_PATH, call, execTool } from './helpers';

const SAMPLE = join(FIXTURES, 'sample.env');

describe('buildToolEnv', () => {
  test('passthrough off: only env_file and env, no PATH', () => {
    const env = buildToolEnv(execTool({ command: '', envFile: SAMPLE, env: { A: '1' } }), {}, { PATH: '/usr/bin', HOME: '/root' });
    assert.equal(env.PATH, undefined);
    assert.equal(env.HOME, undefined);
    assert.equal(env.FROM_FILE, 'file');
    assert.equal(env.A, '1');
  });

  test('order: base < env_file < env < store', () => {
    const tool = execTool({ command: '', envPassthrough: true, envFile: SAMPLE, env: { SHARED: 'from-env' } });
    const env = buildToolEnv(tool, { user: 'alice' }, { SHARED: 'from-base', FROM_FILE: 'base', ONLY_BASE: 'b' });
    assert.equal(env.ONLY_BASE, 'b');
    assert.equal(env.FROM_FILE, 'file');
    assert.equal(env.SHARED, 'from-env');
    assert.equal(env.MCC_CTX_USER, 'alice');
  });

  test('no layer can shadow or forge MCC_CTX*', () => {
    const tool = execTool({ command: '', envPassthrough: true, envFile: SAMPLE, env: { MCC_CTX_USER: 'mallory', MCC_CTX_FORGED: 'x', mcc_ctx_lower: 'y' } });
    const env = buildToolEnv(tool, { user: 'alice' }, { MCC_CTX_USER: 'eve', MCC_CTX_ADMIN: 'true' });
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_CTX, '{"user":"alice"}');
    assert.equal(env.MCC_CTX_FORGED, undefined);
    assert.equal(env.MCC_CTX_ADMIN, undefined);
    assert.equal(env.mcc_ctx_lower, undefined);
  });

  test('strings as they are, other types as JSON, names uppercased', () => {
    const env = buildToolEnv(execTool({ command: '' }), { ...ALICE, budget: 1000, flag: false, obj: { a: [1] }, nothing: null }, {});
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_CTX_GROUPS, '["admin","osint"]');
    assert.equal(env.MCC_CTX_BUDGET, '1000');
    assert.equal(env.MCC_CTX_FLAG, 'false');
    assert.equal(env.MCC_CTX_OBJ, '{"a":[1]}');
    assert.equal(env.MCC_CTX_NOTHING, 'null');
    assert.deepEqual(JSON.parse(env.MCC_CTX), { ...ALICE, budget: 1000, flag: false, obj: { a: [1] }, nothing: null });
  });

  test('a missing or malformed env_file is a ToolInputError naming it', () => {
    const missing = join(FIXTURES, 'missing.env');
    assert.throws(
      () => buildToolEnv(execTool({ command: '', envFile: missing }), {}, {}),
      (e: unknown) => e instanceof ToolInputError && e.message.includes(missing) && /file not found/.test(e.message),
    );
    assert.throws(() => buildToolEnv(execTool({ command: '', envFile: join(FIXTURES, 'bad.env') }), {}, {}), /bad\.env:2: expected KEY=VALUE/);
  });
});

describe('environment of a real subprocess', () => {
  const ex = new ExecExecutor({ defaultMode: 'pipe', baseEnv: { PATH: HOST_PATH, MCC_CTX_USER: 'eve', SERVER_ONLY: 'srv', SHARED: 'base' } });

  test('precedence env_file < env < MCC_CTX, with shadowing attempts from all three layers', async () => {
    const tool = execTool({
      command: 'echo "$SHARED|$FROM_FILE|$QUOTED|$MCC_CTX_USER|$MCC_CTX_BUDGET|$SERVER_ONLY"; echo "$MCC_CTX"',
      envPassthrough: true,
      envFile: SAMPLE,
      env: { SHARED: 'from-env', MCC_CTX_USER: 'mallory-from-env' },
    });
    const { ctx } = call({ ...ALICE, budget: 1000 });
    const out = await ex.run(tool, {}, ctx);
    assert.equal(out.code, 0, out.stderr);
    const [line1, line2] = out.stdout.trim().split('\n');
    assert.equal(line1, 'from-env|file|hello world|alice|1000|srv');
    assert.deepEqual(JSON.parse(line2), { ...ALICE, budget: 1000 });
  });

  test('passthrough off: no PATH, builtins work', async () => {
    const tool = execTool({ command: 'echo "path=[${PATH-unset}] srv=[${SERVER_ONLY-unset}]"; printf "%s\\n" builtin-ok' });
    const out = await ex.run(tool, {}, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'path=[unset] srv=[unset]\nbuiltin-ok\n');
  });

  test('passthrough off: an external command fails with the PATH hint; a full path works', async () => {
    const bad = await ex.run(execTool({ command: 'ls /' }), {}, call().ctx);
    assert.equal(bad.code, 127);
    assert.match(bad.stderr, /not found/);
    assert.match(bad.stderr, /hint: this tool has no PATH because env_passthrough is false/);
    const good = await ex.run(execTool({ command: '/bin/ls /' }), {}, call().ctx);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /\bbin\b/);
  });

  test('passthrough off with PATH set in env: external commands work, no hint on failure', async () => {
    const out = await ex.run(execTool({ command: 'ls / >/dev/null && nosuchcommand-xyz', env: { PATH: HOST_PATH } }), {}, call().ctx);
    assert.equal(out.code, 127);
    assert.doesNotMatch(out.stderr, /hint:/);
  });

  test('passthrough on: the server environment and its PATH are there', async () => {
    const out = await ex.run(execTool({ command: 'echo "$SERVER_ONLY"; command -v ls', envPassthrough: true }), {}, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^srv\n\/.*ls\n$/);
  });
});

test('env_file ${VAR} expansion reads only real environment variables, never inherited properties', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-envfile-'));
  const file = join(dir, 'x.env');
  writeFileSync(file, 'A=${constructor}\nB=${toString}x\nC=${HOME_X}\n');
  const env = buildToolEnv({ env: {}, envFile: file, envPassthrough: false }, {}, { HOME_X: '/h' });
  assert.equal(env.A, '');
  assert.equal(env.B, 'x');
  assert.equal(env.C, '/h');
});
