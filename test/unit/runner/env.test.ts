import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildToolEnv, serverEnv, type ServerEnv } from '../../../src/core/runner/env';
import type { ExecTool } from '../../../src/core/catalog/types';
import { ToolInputError } from '../../../src/core/tool-run/errors';
import { serverSecrets } from '../../../src/core/secrets';
import { envBudget, linuxArgMax } from '../../../src/core/runner/env-limits';
import { spawnSync } from 'node:child_process';
import { ALICE, FIXTURES, HOST_PATH, call, execTool, keptExec } from './helpers';

const SAMPLE = join(FIXTURES, 'sample.env');
const OWNER_TOKEN = 'owner-token-0123456789abcdef';
const ALICE_TOKEN = 'alice-token-0123456789abcdef';
const BOB_SHA = 'a'.repeat(64);

const SERVER_VARS: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/srv',
  USER: 'srv',
  LOGNAME: 'srv',
  SHELL: '/bin/bash',
  LANG: 'C.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TERM: 'xterm',
  TZ: 'UTC',
  TMPDIR: '/tmp',
  PLAIN: 'plain',
  OTHER: 'other',
  MCC_TOKEN: OWNER_TOKEN,
  ALICE_TOKEN,
  HOLDS_TOKEN: `Bearer ${OWNER_TOKEN}`,
  BOB_HASH: BOB_SHA.toUpperCase(),
  MCC_CTX_USER: 'eve',
  MCC_CTX_ADMIN: 'true',
};

const SECRETS = serverSecrets({
  ownerToken: OWNER_TOKEN,
  users: { users: [{ principal: { user: 'alice', email: '', groups: [], grants: [] }, token: ALICE_TOKEN }, { principal: { user: 'bob', email: '', groups: [], grants: [] }, tokenSha256: BOB_SHA }], anonymous: false, tokenEnvNames: ['ALICE_TOKEN'] },
  env: SERVER_VARS,
});
const SERVER: ServerEnv = { vars: SERVER_VARS, secrets: SECRETS };
const FLOOR = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_TIME', 'TERM', 'TZ', 'TMPDIR'];
const SECRET_VARS = ['MCC_TOKEN', 'ALICE_TOKEN', 'HOLDS_TOKEN', 'BOB_HASH'];

/** The environment alone: whatever the run needed (MCC_CTX_FILE) is gone when it returns. */
function envOf(over: Partial<ExecTool>, store: Record<string, unknown> | undefined = ALICE, server = SERVER): Record<string, string> {
  const built = buildToolEnv(execTool({ command: '', ...over }), store, server);
  built.dispose();
  if (built.env.MCC_CTX_FILE) assert.equal(existsSync(built.env.MCC_CTX_FILE), false);
  return built.env;
}

describe('the base of a tool environment', () => {
  test('default (false): the floor and nothing else of the server', () => {
    const env = envOf({});
    for (const k of FLOOR) assert.equal(env[k], SERVER_VARS[k], k);
    assert.equal(env.PLAIN, undefined);
    assert.equal(env.OTHER, undefined);
    for (const k of SECRET_VARS) assert.equal(env[k], undefined, k);
  });

  test('a list: the floor and exactly those; secrets and MCC_CTX* even when listed are not', () => {
    const env = envOf({ envPassthrough: ['PLAIN', 'MCC_TOKEN', 'ALICE_TOKEN', 'HOLDS_TOKEN', 'BOB_HASH', 'MCC_CTX_USER', 'NOT_SET'] });
    for (const k of FLOOR) assert.equal(env[k], SERVER_VARS[k], k);
    assert.equal(env.PLAIN, 'plain');
    assert.equal(env.OTHER, undefined);
    assert.equal('NOT_SET' in env, false);
    for (const k of SECRET_VARS) assert.equal(env[k], undefined, k);
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_CTX_ADMIN, undefined);
  });

  test('true: the whole server environment, still without its secrets or MCC_CTX*', () => {
    const env = envOf({ envPassthrough: true });
    assert.equal(env.PLAIN, 'plain');
    assert.equal(env.OTHER, 'other');
    for (const k of SECRET_VARS) assert.equal(env[k], undefined, k);
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_CTX_ADMIN, undefined);
    for (const v of Object.values(env)) assert.ok(!v.includes(OWNER_TOKEN) && !v.includes(ALICE_TOKEN));
  });

  test('MCC_TOKEN is kept back even when a host gave no secrets at all', () => {
    const env = envOf({ envPassthrough: true }, ALICE, serverEnv(SERVER_VARS));
    assert.equal(env.MCC_TOKEN, undefined);
    assert.equal(env.PLAIN, 'plain');
  });

  test('env_file and env are the author\'s: they may set anything but MCC_CTX*', () => {
    const env = envOf({ envFile: SAMPLE, env: { A: '1', PATH: '/opt/bin', MCC_CTX_USER: 'mallory', MCC_CTX_FORGED: 'x', mcc_ctx_lower: 'y', TOKEN_ON_PURPOSE: 'mine' } });
    assert.equal(env.FROM_FILE, 'file');
    assert.equal(env.A, '1');
    assert.equal(env.PATH, '/opt/bin');
    assert.equal(env.TOKEN_ON_PURPOSE, 'mine');
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_CTX_FORGED, undefined);
    assert.equal(env.mcc_ctx_lower, undefined);
    assert.deepEqual(JSON.parse(env.MCC_CTX), ALICE);
  });

  test('order: base < env_file < env < store', () => {
    const env = envOf({ envPassthrough: true, envFile: SAMPLE, env: { SHARED: 'from-env' } }, { user: 'alice' }, { ...SERVER, vars: { ...SERVER_VARS, SHARED: 'from-base', FROM_FILE: 'base', ONLY_BASE: 'b' } });
    assert.equal(env.ONLY_BASE, 'b');
    assert.equal(env.FROM_FILE, 'file');
    assert.equal(env.SHARED, 'from-env');
    assert.equal(env.MCC_CTX_USER, 'alice');
  });

  test('${VAR} in an env_file never expands to a secret or an MCC_CTX* of the server', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcc-envfile-'));
    const file = join(dir, 'x.env');
    writeFileSync(file, 'A=${MCC_TOKEN}\nB=${ALICE_TOKEN}\nC=${HOLDS_TOKEN}\nD=${MCC_CTX_USER}\nE=${OTHER}\n');
    const env = envOf({ envFile: file });
    assert.deepEqual([env.A, env.B, env.C, env.D, env.E], ['', '', '', '', 'other']);
  });

  test('without a store (introspection, a module check): no MCC_CTX* at all', () => {
    const env = buildToolEnv(execTool({ command: '', env: { MCC_CTX: '{}' } }), undefined, SERVER).env;
    assert.deepEqual(Object.keys(env).filter((k) => k.startsWith('MCC_CTX')), []);
    assert.equal(env.PATH, '/usr/bin:/bin');
  });

  test('a NUL character in env is a clear error naming the variable', () => {
    assert.throws(() => envOf({ env: { BAD: 'a\0b' } }), (e: unknown) => e instanceof ToolInputError && /BAD contains a NUL/.test(e.message));
  });
});

describe('the store in the environment', () => {
  test('strings as they are, other types as JSON, names uppercased', () => {
    const store = { ...ALICE, budget: 1000, flag: false, obj: { a: [1] }, nothing: null };
    const env = envOf({}, store);
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_CTX_GROUPS, '["admin","osint"]');
    assert.equal(env.MCC_CTX_BUDGET, '1000');
    assert.equal(env.MCC_CTX_FLAG, 'false');
    assert.equal(env.MCC_CTX_OBJ, '{"a":[1]}');
    assert.equal(env.MCC_CTX_NOTHING, 'null');
    assert.equal(env.MCC_CTX_OMITTED, undefined);
    assert.equal(env.MCC_CTX_FILE, undefined);
    assert.deepEqual(JSON.parse(env.MCC_CTX), store);
  });

  test('a string with a NUL: in MCC_CTX JSON-escaped, no MCC_CTX_<NAME>, named in MCC_CTX_OMITTED', () => {
    const env = envOf({}, { ...ALICE, nul: 'a\u0000b', deep: { s: 'x\u0000y' } });
    assert.match(env.MCC_CTX, /"nul":"a\\u0000b"/);
    assert.equal((JSON.parse(env.MCC_CTX) as { nul: string }).nul, 'a\u0000b');
    assert.equal(env.MCC_CTX_NUL, undefined);
    assert.equal(env.MCC_CTX_DEEP, '{"s":"x\\u0000y"}');
    assert.equal(env.MCC_CTX_OMITTED, 'nul');
    for (const v of Object.values(env)) assert.ok(!v.includes('\0'));
  });

  test('a value at the 64 KiB value limit gets its own variable', () => {
    const big = 'v'.repeat(65534); // 65536 bytes as JSON
    const env = envOf({}, { ...ALICE, big });
    assert.equal(env.MCC_CTX_BIG, big);
    assert.equal(env.MCC_CTX, undefined, 'the whole store is over 32 KiB: it is in a file');
    assert.ok(env.MCC_CTX_FILE);
  });

  test('a bucket at the 1 MiB limit: MCC_CTX_FILE (0600) holds it all, the variables that fit are set, the rest named', () => {
    const store: Record<string, unknown> = { ...ALICE, small: 'x' };
    for (let i = 0; i < 16; i++) store[`v${String(i).padStart(2, '0')}`] = 'y'.repeat(65000);
    const built = buildToolEnv(execTool({ command: '' }), store, SERVER);
    const env = built.env;
    const file = env.MCC_CTX_FILE;
    assert.ok(file && existsSync(file));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), store);
    assert.equal(env.MCC_CTX, undefined);
    assert.equal(env.MCC_CTX_SMALL, 'x');
    assert.equal(env.MCC_CTX_USER, 'alice');
    const set = Object.keys(store).filter((k) => env[`MCC_CTX_${k.toUpperCase()}`] !== undefined);
    const omitted = env.MCC_CTX_OMITTED.split(' ');
    assert.deepEqual([...set, ...omitted].sort(), Object.keys(store).sort(), 'every key is either set or named');
    assert.ok(omitted.length >= 12, `most large values are left out: ${omitted.join(' ')}`);
    const ctxBytes = Object.entries(env).filter(([k]) => k.startsWith('MCC_CTX')).reduce((n, [k, v]) => n + k.length + v.length + 2, 0);
    assert.ok(ctxBytes <= 256 * 1024, `MCC_CTX* use ${ctxBytes} bytes`);
    built.dispose();
    assert.equal(existsSync(file), false, 'the file goes with the run');
    built.dispose();
  });

  test('many small values: all of them while they fit, smallest first', () => {
    const store: Record<string, unknown> = { ...ALICE };
    for (let i = 0; i < 5000; i++) store[`k${i}`] = i;
    const built = buildToolEnv(execTool({ command: '' }), store, SERVER);
    const env = built.env;
    assert.equal(env.MCC_CTX_K0, '0');
    assert.equal(env.MCC_CTX_K4999, '4999');
    assert.equal(env.MCC_CTX_OMITTED, undefined);
    assert.ok(env.MCC_CTX_FILE, 'the whole store is over 32 KiB');
    built.dispose();
  });

  test('a huge number of small values: MCC_CTX_OMITTED is cut and says so', () => {
    const store: Record<string, unknown> = { ...ALICE };
    for (let i = 0; i < 60000; i++) store[`key_${i}`] = i;
    const built = buildToolEnv(execTool({ command: '' }), store, SERVER);
    const omitted = built.env.MCC_CTX_OMITTED;
    assert.ok(omitted.endsWith(' ...'));
    assert.ok(omitted.length <= 8 * 1024);
    built.dispose();
  });

  test('MCC_CTX_TOOLS stays small for any catalog: 5,000 tool keys go to the file only', () => {
    const tools = Array.from({ length: 5000 }, (_, i) => `group_${i % 50}.tool_number_${i}`);
    const built = buildToolEnv(execTool({ command: '' }), { ...ALICE, tools, target: 'db1' }, SERVER);
    const env = built.env;
    assert.equal(env.MCC_CTX_TOOLS, undefined);
    assert.equal(env.MCC_CTX_OMITTED, 'tools');
    assert.equal(env.MCC_CTX_TARGET, 'db1');
    assert.deepEqual((JSON.parse(readFileSync(env.MCC_CTX_FILE, 'utf8')) as { tools: string[] }).tools, tools);
    const total = Object.entries(env).reduce((n, [k, v]) => n + k.length + v.length + 2, 0);
    assert.ok(total < 4096, `the environment stays small: ${total} bytes`);
    built.dispose();
    const few = envOf({}, { ...ALICE, tools: tools.slice(0, 100) });
    assert.deepEqual(JSON.parse(few.MCC_CTX_TOOLS), tools.slice(0, 100));
  });
});

describe('environment of a real subprocess', () => {
  const ex = keptExec({ defaultMode: 'pipe', baseEnv: { ...SERVER_VARS, PATH: HOST_PATH, SHARED: 'base' }, secrets: SECRETS });

  test('precedence env_file < env < MCC_CTX, with shadowing attempts from all three layers', async () => {
    const tool = execTool({
      command: 'echo "$SHARED|$FROM_FILE|$QUOTED|$MCC_CTX_USER|$MCC_CTX_BUDGET|$PLAIN"; echo "$MCC_CTX"',
      envPassthrough: true,
      envFile: SAMPLE,
      env: { SHARED: 'from-env', MCC_CTX_USER: 'mallory-from-env' },
    });
    const { ctx } = call({ ...ALICE, budget: 1000 });
    const out = await ex.run(tool, {}, ctx);
    assert.equal(out.code, 0, out.stderr);
    const [line1, line2] = out.stdout.trim().split('\n');
    assert.equal(line1, 'from-env|file|hello world|alice|1000|plain');
    assert.deepEqual(JSON.parse(line2), { ...ALICE, budget: 1000 });
  });

  test('default: plain commands (tr, sort, sed) run from the floor\'s PATH; the server\'s own variables are not there', async () => {
    const out = await ex.run(execTool({ command: 'printf "b\\na\\n" | sort | tr a-z A-Z | sed s/A/first/; echo "[${PLAIN-unset}][${MCC_TOKEN-unset}]"' }), {}, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'first\nB\n[unset][unset]\n');
  });

  test('code 127 names the command that was not found, and the PATH', async () => {
    const out = await ex.run(execTool({ command: 'nosuchcommand-xyz --flag' }), {}, call().ctx);
    assert.equal(out.code, 127);
    assert.match(out.stderr, /hint: 'nosuchcommand-xyz' was not found \(code 127\)/);
    assert.ok(out.stderr.includes(`PATH=${HOST_PATH}`));
    assert.doesNotMatch(out.stderr, /env_passthrough/);
  });

  test('a failing command other than 127 gets no hint', async () => {
    const out = await ex.run(execTool({ command: 'echo "x: not found" >&2; exit 3' }), {}, call().ctx);
    assert.equal(out.code, 3);
    assert.doesNotMatch(out.stderr, /hint:/);
  });

  test('MCC_CTX_FILE is there during the run, 0600, and gone after it (transform included)', async () => {
    const store: Record<string, unknown> = { ...ALICE };
    for (let i = 0; i < 16; i++) store[`v${i}`] = 'z'.repeat(65000);
    const tool = execTool({ command: 'stat -c %a "$MCC_CTX_FILE"; echo "$MCC_CTX_FILE"', transform: 'cat; wc -c < "$MCC_CTX_FILE"' });
    // The transform is the tool runner's, as in the runtime: it has its own environment, and so its own file.
    const out = await keptExec({ defaultMode: 'pipe', baseEnv: { PATH: HOST_PATH } }).run(tool, {}, call(store).ctx);
    assert.equal(out.code, 0, out.stderr);
    const [mode, file, size] = out.stdout.trim().split('\n');
    assert.equal(mode, '600');
    assert.equal(Number(size), Buffer.byteLength(JSON.stringify(store)));
    assert.equal(existsSync(file), false);
  });
});

describe('the environment budget', () => {
  test('follows the stack limit as Linux does: a quarter of it, within 128 KiB and 6 MiB', () => {
    const limits = (stack: string): string => `Limit                     Soft Limit           Hard Limit           Units\nMax stack size            ${stack}              unlimited            bytes\n`;
    assert.equal(linuxArgMax(limits('8388608')), 2 * 1024 * 1024);
    assert.equal(linuxArgMax(limits('unlimited')), 6 * 1024 * 1024);
    assert.equal(linuxArgMax(limits('262144')), 128 * 1024);
    assert.equal(linuxArgMax(undefined), 2 * 1024 * 1024);
    assert.deepEqual(envBudget(2 * 1024 * 1024), { total: 256 * 1024, entry: 100 * 1024, ctx: 32 * 1024, tools: 16 * 1024, omitted: 8 * 1024 });
    assert.deepEqual(envBudget(128 * 1024), { total: 32 * 1024, entry: 32 * 1024, ctx: 32 * 1024, tools: 16 * 1024, omitted: 8 * 1024 });
  });

  test('a server started with a small stack limit (ulimit -s 512) still runs a tool for a 1 MiB bucket', () => {
    const script = `
      const { ExecExecutor } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'src', 'core', 'runner', 'exec-executor.js'))});
      const store = { user: 'alice' };
      for (let i = 0; i < 16; i++) store['v' + i] = 'y'.repeat(65000);
      const tool = { kind: 'exec', key: 't.t', name: 't', description: '', groups: [], params: [], env: {}, envPassthrough: false, limits: {}, stdin: false, source: { file: '/t.yaml', line: 1 }, catalogDir: '/', command: 'echo "$MCC_CTX_USER $(wc -c < "$MCC_CTX_FILE")"' };
      new ExecExecutor({ defaultMode: 'pipe' }).prepare(tool, {}, { runId: 'r', caller: { user: 'alice', bucketKey: 's' }, store, events: { emit() {} } }).start()
        .then((o) => { process.stdout.write(JSON.stringify(o)); });
    `;
    const r = spawnSync('/bin/sh', ['-c', 'ulimit -s 512 && exec "$0" -e "$1"', process.execPath, script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { code: number; stdout: string; stderr: string };
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^alice \d{7}\n$/);
  });
});
