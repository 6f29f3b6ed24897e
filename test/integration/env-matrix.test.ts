// The environment of every kind of subprocess, for every env_passthrough
// base, through the real `mcc serve`: exec in a pty and on pipes, a
// transform, curl, JavaScript and Python (warm and one-shot) fn tools and
// Python introspection. Each has the floor, none has a server secret or
// MCC_TOKEN, and a forged MCC_CTX_USER never wins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, okText, startServe, tempDir, type ServeHandle } from './serve-process';

const OWNER_TOKEN = 'owner-token-env-matrix-0123456789';
const ALICE_TOKEN = 'alice-token-env-matrix-0123456789';
const BOB_TOKEN = 'bob-token-env-matrix-0123456789';
const BOB_HASH = createHash('sha256').update(BOB_TOKEN).digest('hex');
const SECRET_VALUES = [OWNER_TOKEN, ALICE_TOKEN, BOB_HASH];
const SECRET_NAMES = ['MCC_TOKEN', 'ALICE_TOKEN', 'BOB_HASH', 'COPY_OF_TOKEN'];
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const LISTED = ['PLAIN_VAR', ...SECRET_NAMES, 'MCC_CTX_USER'];

type Base = 'false' | 'list' | 'true';
const BASES: Base[] = ['false', 'list', 'true'];
const KINDS = ['exec_pty', 'exec_pipe', 'transform', 'curl', 'js', 'py_warm', 'py_oneshot', 'introspect'] as const;

function passthrough(base: Base): string {
  return base === 'false' ? '' : `    env_passthrough: ${base === 'true' ? 'true' : `[${LISTED.join(', ')}]`}\n`;
}

function catalog(dir: string): string {
  let yaml = 'groups: [m]\nenv:\n  MCC_CTX_USER: forged-by-file-env\ntools:\n';
  for (const b of BASES) {
    const common = `${passthrough(b)}    env:\n      MCC_CTX_USER: forged-by-tool-env\n`;
    yaml += `  - name: exec_pty_${b}\n    pty: true\n    exec: env\n${common}`;
    yaml += `  - name: exec_pipe_${b}\n    pty: false\n    exec: env\n${common}`;
    yaml += `  - name: transform_${b}\n    pty: false\n    exec: echo ignored\n    transform: env\n${common}`;
    // curl's own environment, as curl reads it from /proc, into a file (stdout drops NULs).
    yaml += `  - name: curl_${b}\n    pty: false\n    params: [{name: out}]\n    curl: "-s file:///dev/null -o {{ out | quote }} file:///proc/self/environ"\n${common}`;
    yaml += `  - name: js_${b}\n    fn: ./probe.mjs:env\n    params: []\n${common}`;
    yaml += `  - name: py_warm_${b}\n    fn: pyprobe:env\n    python: ${PYTHON}\n${common}`;
    yaml += `  - name: py_oneshot_${b}\n    fn: pyprobe:env\n    python: ${PYTHON}\n    limits: {nofile: 256}\n${common}`;
    yaml += `  - name: introspect_${b}\n    fn: intro_${b}:probe\n    python: ${PYTHON}\n${common}`;
    writeFileSync(join(dir, `intro_${b}.py`), 'import json, os\n\n\ndef probe():\n    return 1\n\n\nprobe.__doc__ = "ENV=" + json.dumps(dict(os.environ))\n');
  }
  writeFileSync(join(dir, 'probe.mjs'), 'export function env() { return { ...process.env }; }\n');
  writeFileSync(join(dir, 'pyprobe.py'), 'import os\n\n\ndef env() -> dict:\n    return dict(os.environ)\n');
  writeFileSync(join(dir, 'users.yaml'), 'users:\n  - {user: alice, groups: [m], token: "${ALICE_TOKEN}"}\n  - {user: bob, token_sha256: "${BOB_HASH}"}\n');
  return yaml;
}

function parseLines(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(line.slice(0, eq))) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

describe('the environment of every kind of subprocess, for every base', () => {
  let h: ServeHandle;
  let c: Client;
  let described = '';
  const dir = tempDir();
  const serverEnv = {
    MCC_TOKEN: OWNER_TOKEN,
    ALICE_TOKEN,
    BOB_HASH,
    COPY_OF_TOKEN: `Bearer ${OWNER_TOKEN}`,
    PLAIN_VAR: 'plain-value',
    OTHER_VAR: 'other-value',
    MCC_CTX_USER: 'forged-by-server',
    MCC_CTX_EXTRA: 'forged-by-server',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
  };

  before(async () => {
    writeFileSync(join(dir, 'tools.yaml'), catalog(dir));
    h = await startServe(['--tools', join(dir, 'tools.yaml'), '--users', join(dir, 'users.yaml'), '--state', join(dir, 's.json'), '--user', 'owner'], serverEnv);
    c = await connect(h);
    described = await okText(c, 'describe_tools');
  });
  after(async () => {
    await c.close();
    assert.equal(await h.stop(), 0);
    assert.doesNotMatch(h.stderr(), new RegExp(SECRET_VALUES.join('|')), 'no secret in the log');
  });

  async function envOf(kind: (typeof KINDS)[number], base: Base): Promise<Record<string, string>> {
    const key = `m.${kind}_${base}`;
    if (kind === 'introspect') {
      const m = new RegExp(`^## ${key.replace('.', '\\.')}\\nENV=(.*)$`, 'm').exec(described);
      assert.ok(m, `${key} not in describe_tools:\n${described.slice(0, 2000)}`);
      return JSON.parse(m[1]) as Record<string, string>;
    }
    if (kind === 'curl') {
      const file = join(dir, `curl-${base}.env`);
      await okText(c, 'execute', { key, params: { out: file } });
      return parseLines(readFileSync(file, 'utf8').split('\0').join('\n'));
    }
    const out = await okText(c, 'execute', { key });
    return kind === 'js' || kind.startsWith('py') ? (JSON.parse(out) as Record<string, string>) : parseLines(out);
  }

  for (const base of BASES) {
    for (const kind of KINDS) {
      test(`${kind}, env_passthrough ${base === 'list' ? 'a list' : base}`, async () => {
        const env = await envOf(kind, base);
        assert.equal(env.PATH, process.env.PATH, 'PATH from the floor');
        assert.equal(env.HOME, process.env.HOME, 'HOME from the floor');
        assert.equal(env.LANG, 'C.UTF-8');
        assert.equal(env.TZ, 'UTC');
        for (const name of SECRET_NAMES) assert.equal(env[name], undefined, `${name} must not be there`);
        for (const [k, v] of Object.entries(env)) {
          for (const s of SECRET_VALUES) assert.ok(!v.includes(s), `${k} holds a secret`);
        }
        assert.equal(env.PLAIN_VAR, base === 'false' ? undefined : 'plain-value');
        assert.equal(env.OTHER_VAR, base === 'true' ? 'other-value' : undefined);
        assert.equal(env.MCC_CTX_EXTRA, undefined);
        if (kind === 'introspect') {
          assert.deepEqual(Object.keys(env).filter((k) => k.startsWith('MCC_CTX')), [], 'no store at introspection');
        } else {
          assert.equal(env.MCC_CTX_USER, 'owner');
          assert.equal((JSON.parse(env.MCC_CTX) as { user: string }).user, 'owner');
        }
      });
    }
  }

  test('catalog users see the same: a forged MCC_CTX_USER never wins for them either', async () => {
    const alice = await connect(h, { token: ALICE_TOKEN });
    const env = parseLines(await okText(alice, 'execute', { key: 'm.exec_pipe_true' }));
    assert.equal(env.MCC_CTX_USER, 'alice');
    assert.equal(env.MCC_TOKEN, undefined);
    await alice.close();
  });
});
