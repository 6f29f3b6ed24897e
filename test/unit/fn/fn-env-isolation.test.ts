// Function tools get the tool's own environment (never the server's), JS
// workers are kept per user like warm Python processes, and a session value
// with a NUL character breaks neither runner.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FnTool } from '../../../src/core/catalog/types';
import { FnToolResolver } from '../../../src/core/fn/fn-tool-resolver';
import type { RunContext } from '../../../src/core/tool-run/contract';
import { serverSecrets } from '../../../src/core/secrets';
import { silentLogger } from '../../../src/core/host';
import { ALICE, jsTool, pyTool, keptFn } from './helpers';

const OWNER_TOKEN = 'owner-token-for-fn-tests-0123';
const SERVER_VARS = { ...process.env, MCC_TOKEN: OWNER_TOKEN, SERVER_ONLY: 'server-only', MCC_CTX_USER: 'forged-by-server' };
const SECRETS = serverSecrets({ ownerToken: OWNER_TOKEN, env: SERVER_VARS });
const BOB = { ...ALICE, user: 'bob', email: 'bob@example.com' };
// The interpreter itself, not a version manager's shim that edits PATH on its way.
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

function ctxOf(store: Record<string, unknown>, sessionKey = 's1'): RunContext {
  return { runId: randomUUID(), caller: { user: String(store.user), bucketKey: sessionKey }, store, events: { emit: () => undefined } };
}

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-fn-env-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const JS = dirWith({
  'probe.mjs': `
const atLoad = { token: process.env.MCC_TOKEN ?? null, server: process.env.SERVER_ONLY ?? null, path: process.env.PATH ?? null };
export function env() {
  return { atLoad, token: process.env.MCC_TOKEN ?? null, server: process.env.SERVER_ONLY ?? null, path: process.env.PATH ?? null, user: process.env.MCC_CTX_USER ?? null };
}
let seen = [];
export function remember(_p, context) {
  seen.push(context.user);
  return seen;
}
export function nul(_p, context) {
  return { value: context.nul, env: process.env.MCC_CTX_NUL ?? null, omitted: process.env.MCC_CTX_OMITTED ?? null };
}
`,
});
const PY = dirWith({
  'probe.py': `
import os
AT_IMPORT = {"token": os.environ.get("MCC_TOKEN"), "server": os.environ.get("SERVER_ONLY"), "path": os.environ.get("PATH")}


def env():
    """Its doc says what it saw when imported: %s""" % AT_IMPORT
    return dict(AT_IMPORT, user=os.environ.get("MCC_CTX_USER"), now_token=os.environ.get("MCC_TOKEN"))


env.__doc__ = "seen at import: token=%(token)s server=%(server)s path=%(path)s" % AT_IMPORT


def nul(context: dict) -> dict:
    return {"value": context.get("nul"), "env": os.environ.get("MCC_CTX_NUL"), "omitted": os.environ.get("MCC_CTX_OMITTED")}
`,
  'leaky.py': `raise RuntimeError("import failed and says ${OWNER_TOKEN}")\n`,
});

function js(name: string, over: Partial<FnTool> = {}): FnTool {
  return jsTool(name, { catalogDir: JS, ...over }, join(JS, 'probe.mjs'));
}
function py(target: string, over: Partial<FnTool> = {}): FnTool {
  return pyTool(target, { catalogDir: PY, python: PYTHON, ...over });
}

describe('function tools: environment and isolation', () => {
  const ex = keptFn({ poolSize: 4, baseEnv: SERVER_VARS, secrets: SECRETS });
  after(() => ex.dispose());

  test('a JS module sees the tool\'s environment when it loads and when it runs, never the server\'s', async () => {
    const r = await ex.run(js('env', { env: { MCC_CTX_USER: 'forged-by-env' } }), {}, ctxOf(ALICE));
    assert.equal(r.code, 0, r.stderr);
    const v = r.value as Record<string, unknown>;
    assert.deepEqual(v.atLoad, { token: null, server: null, path: process.env.PATH });
    assert.equal(v.token, null);
    assert.equal(v.server, null);
    assert.equal(v.path, process.env.PATH);
    assert.equal(v.user, 'alice');
  });

  test('JS workers are kept per user: a module global set for one user is not seen by another', async () => {
    const tool = js('remember');
    assert.deepEqual((await ex.run(tool, {}, ctxOf(ALICE))).value, ['alice']);
    assert.deepEqual((await ex.run(tool, {}, ctxOf(BOB))).value, ['bob']);
    assert.deepEqual((await ex.run(tool, {}, ctxOf(ALICE))).value, ['alice', 'alice'], 'the same user keeps a warm worker');
    assert.deepEqual((await ex.run(tool, {}, ctxOf(BOB))).value, ['bob', 'bob']);
    const anon = { ...ALICE, user: 'anonymous' };
    assert.deepEqual((await ex.run(tool, {}, ctxOf(anon, 'one'))).value, ['anonymous']);
    assert.deepEqual((await ex.run(tool, {}, ctxOf(anon, 'two'))).value, ['anonymous'], 'anonymous sessions do not share');
  });

  test('with one worker allowed, users take turns and still never share', async () => {
    const small = keptFn({ poolSize: 1, baseEnv: SERVER_VARS, secrets: SECRETS });
    try {
      const tool = js('remember');
      assert.deepEqual((await small.run(tool, {}, ctxOf(ALICE))).value, ['alice']);
      assert.deepEqual((await small.run(tool, {}, ctxOf(BOB))).value, ['bob']);
      assert.deepEqual((await small.run(tool, {}, ctxOf(ALICE))).value, ['alice']);
    } finally {
      await small.dispose();
    }
  });

  test('a Python tool (warm and one-shot) runs with its own environment', async () => {
    for (const tool of [py('probe:env'), py('probe:env', { limits: { nofile: 256 } })]) {
      const r = await ex.run(tool, {}, ctxOf(ALICE));
      assert.equal(r.code, 0, r.stderr);
      const v = r.value as Record<string, unknown>;
      assert.deepEqual([v.token, v.server, v.path, v.user, v.now_token], [null, null, process.env.PATH, 'alice', null]);
    }
  });

  test('a NUL character in a session string breaks neither runner: context has it, MCC_CTX_<NAME> is left out and named', async () => {
    const store = { ...ALICE, nul: 'a\u0000b' };
    for (const tool of [js('nul'), py('probe:nul'), py('probe:nul', { limits: { nofile: 256 } })]) {
      for (let i = 0; i < 2; i++) {
        const r = await ex.run(tool, {}, ctxOf(store));
        assert.equal(r.code, 0, `${tool.target}: ${r.stderr}`);
        assert.deepEqual(r.value, { value: 'a\u0000b', env: null, omitted: 'nul' });
      }
    }
    const after = await ex.run(py('probe:env'), {}, ctxOf(store));
    assert.equal(after.code, 0, 'the warm process still serves: ' + after.stderr);
  });

  test('a whole store too large for the environment still reaches context, and MCC_CTX_FILE is gone after the call', async () => {
    const store: Record<string, unknown> = { ...ALICE };
    for (let i = 0; i < 16; i++) store[`v${i}`] = 'x'.repeat(65000);
    const dir = dirWith({ 'big.mjs': 'import { existsSync } from "node:fs";\nexport function big(_p, c) { return { keys: Object.keys(c).length, file: process.env.MCC_CTX_FILE, there: existsSync(process.env.MCC_CTX_FILE) }; }\n' });
    const r = await ex.run(jsTool('big', { catalogDir: dir }, join(dir, 'big.mjs')), {}, ctxOf(store));
    assert.equal(r.code, 0, r.stderr);
    const v = r.value as { keys: number; file: string; there: boolean };
    assert.equal(v.keys, Object.keys(store).length);
    assert.equal(v.there, true);
    assert.equal(existsSync(v.file), false);
  });
});

describe('introspection and module checks with the tool\'s environment', () => {
  test('a Python module is imported with the tool\'s environment; a failed import is named, its traceback logged without secrets', async () => {
    const warnings: string[] = [];
    const resolver = new FnToolResolver({ baseEnv: SERVER_VARS, secrets: SECRETS, logger: { ...silentLogger, warn: (m) => warnings.push(m) } });
    const { tools, diagnostics } = await resolver.resolve([py('probe:env', { env: { MCC_CTX_USER: 'forged' } }), py('leaky:tool')]);
    assert.equal(tools.length, 1);
    assert.equal(tools[0].description, `seen at import: token=None server=None path=${process.env.PATH}`);
    assert.equal(diagnostics.length, 1);
    assert.match(diagnostics[0].message, /cannot import module 'leaky' for 'leaky:tool' \(.*\): RuntimeError: import failed and says \*\*\*$/);
    assert.ok(warnings.some((w) => /Traceback/.test(w) && /leaky\.py/.test(w)), warnings.join('\n'));
    assert.doesNotMatch(warnings.join('\n') + JSON.stringify(diagnostics), new RegExp(OWNER_TOKEN));
  });

  test('a passthrough list reaches the introspection too', async () => {
    const resolver = new FnToolResolver({ baseEnv: SERVER_VARS, secrets: SECRETS });
    const { tools } = await resolver.resolve([py('probe:env', { envPassthrough: ['SERVER_ONLY', 'MCC_TOKEN'] })]);
    assert.equal(tools[0].description, `seen at import: token=None server=server-only path=${process.env.PATH}`);
  });
  test('an env_file missing at load time is a warning, not a lost tool; the env_file is read again at each call', async () => {
    const resolver = new FnToolResolver({ baseEnv: SERVER_VARS, secrets: SECRETS });
    const missing = join(PY, 'later.env');
    const { tools, diagnostics } = await resolver.resolve([py('probe:env', { envFile: missing }), js('env', { envFile: missing })]);
    assert.equal(tools.length, 2);
    assert.equal(diagnostics.length, 2);
    for (const d of diagnostics) {
      assert.equal(d.severity, 'warning');
      assert.match(d.message, /later\.env.*the module was loaded without it/);
    }
  });
});
