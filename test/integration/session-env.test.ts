// Sessions never break a tool, through the real `mcc serve`: a bucket at
// the 1 MiB limit, one value at 64 KiB, many small values, a string with a
// NUL character; and JavaScript workers kept per user.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, okText, startServe, tempDir, type ServeHandle } from './serve-process';

const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const ALICE_TOKEN = 'alice-token-session-env-0123';
const BOB_TOKEN = 'bob-token-session-env-01234';

const REPORT = [
  'if [ -n "${MCC_CTX+x}" ]; then echo "ctx=env"; else echo "ctx=none"; fi',
  'echo "file=${MCC_CTX_FILE:-}"',
  '[ -n "${MCC_CTX_FILE:-}" ] && echo "mode=$(stat -c %a "$MCC_CTX_FILE")" && echo "size=$(wc -c < "$MCC_CTX_FILE")"',
  'echo "omitted=${MCC_CTX_OMITTED:-}"',
  'echo "user=$MCC_CTX_USER"',
  'echo "small=${MCC_CTX_SMALL:-}"',
  'echo "big=$(printf %s "${MCC_CTX_BIG:-}" | wc -c)"',
  'echo "k=$(env | grep -c "^MCC_CTX_K[0-9]")"',
  'echo "nul=[${MCC_CTX_NUL-unset}]"',
  'echo "nuljson=$(printf %s "${MCC_CTX:-}" | grep -c "u0000")"',
].join('\n');

function catalog(dir: string): void {
  const block = (text: string): string => text.split('\n').map((l) => `      ${l}`).join('\n');
  writeFileSync(
    join(dir, 'tools.yaml'),
    `groups: [s]
tools:
  - name: report_pty
    pty: true
    exec: |
${block(REPORT)}
  - name: report_pipe
    pty: false
    exec: |
${block(REPORT)}
  - name: js_ctx
    fn: ./ctx.mjs:ctx
    params: []
  - name: js_remember
    groups: [public]
    fn: ./ctx.mjs:remember
    params: []
  - name: py_ctx
    fn: ctxpy:ctx
    python: ${PYTHON}
  - name: py_ctx_oneshot
    fn: ctxpy:ctx
    python: ${PYTHON}
    limits: {nofile: 256}
`,
  );
  writeFileSync(
    join(dir, 'ctx.mjs'),
    `import { existsSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
export function ctx(_p, context) {
  const file = process.env.MCC_CTX_FILE;
  const whole = file ? JSON.parse(readFileSync(file, 'utf8')) : JSON.parse(process.env.MCC_CTX);
  return { keys: Object.keys(context).length, same: isDeepStrictEqual(whole, context), nul: context.nul ?? null, file: file ?? null, there: file ? existsSync(file) : null };
}
const seen = [];
export function remember(_p, context) { seen.push(context.user); return seen; }
`,
  );
  writeFileSync(
    join(dir, 'ctxpy.py'),
    `import json, os


def ctx(context: dict) -> dict:
    file = os.environ.get("MCC_CTX_FILE")
    whole = json.load(open(file)) if file else json.loads(os.environ["MCC_CTX"])
    return {"keys": len(context), "same": whole == context, "nul": context.get("nul"), "file": file, "env_nul": os.environ.get("MCC_CTX_NUL")}
`,
  );
  writeFileSync(join(dir, 'users.yaml'), `users:\n  - {user: alice, token: ${ALICE_TOKEN}}\n  - {user: bob, token: ${BOB_TOKEN}}\n`);
}

function fields(text: string): Record<string, string> {
  return Object.fromEntries(text.split(/\r?\n/).filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

describe('sessions within the limits never break a tool', () => {
  let h: ServeHandle;
  const dir = tempDir();
  before(async () => {
    catalog(dir);
    h = await startServe(['--tools', join(dir, 'tools.yaml'), '--users', join(dir, 'users.yaml'), '--state', join(dir, 's.json'), '--user', 'owner']);
  });
  after(async () => {
    assert.equal(await h.stop(), 0);
  });

  async function session(key: string, vars: Record<string, unknown>): Promise<Client> {
    const c = await connect(h, { sessionKey: key });
    for (const [name, value] of Object.entries(vars)) await okText(c, 'set_session', { name, value });
    return c;
  }

  test('a bucket at the 1 MiB limit: every tool kind runs; MCC_CTX_FILE (0600) holds it all and is gone after the run', async () => {
    const vars: Record<string, unknown> = { small: 'x' };
    for (let i = 0; i < 16; i++) vars[`v${String(i).padStart(2, '0')}`] = 'y'.repeat(65000);
    const c = await session('full-bucket', vars);
    // The bucket really is at the limit: one more value does not fit.
    const over = await c.callTool({ name: 'set_session', arguments: { name: 'one_more', value: 'z'.repeat(9000) } });
    assert.equal(over.isError, true);
    for (const key of ['s.report_pty', 's.report_pipe']) {
      const f = fields(await okText(c, 'execute', { key }));
      assert.equal(f.ctx, 'none', key);
      assert.equal(f.mode, '600');
      assert.ok(Number(f.size) > 1_000_000);
      assert.equal(existsSync(f.file), false, 'the file goes with the run');
      assert.equal(f.user, 'owner');
      assert.equal(f.small, 'x');
      assert.ok(f.omitted.split(' ').length >= 12, f.omitted);
    }
    for (const key of ['s.js_ctx', 's.py_ctx', 's.py_ctx_oneshot']) {
      const v = JSON.parse(await okText(c, 'execute', { key })) as { keys: number; same: boolean; file: string | null };
      assert.equal(v.keys, 17 + 4, key);
      assert.equal(v.same, true, `${key}: context is the whole store, and so is the file`);
      assert.ok(v.file && !existsSync(v.file));
    }
    await c.close();
  });

  test('one value at 64 KiB gets its own MCC_CTX_BIG', async () => {
    const c = await session('one-big', { big: 'b'.repeat(65534) });
    for (const key of ['s.report_pty', 's.report_pipe']) assert.equal(fields(await okText(c, 'execute', { key })).big, '65534');
    await c.close();
  });

  test('many small values: all of them as MCC_CTX_<NAME>', async () => {
    const vars: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) vars[`k${i}`] = i;
    const c = await session('many-small', vars);
    const f = fields(await okText(c, 'execute', { key: 's.report_pipe' }));
    assert.equal(f.k, '2000');
    assert.equal(f.omitted, '');
    await c.close();
  });

  test('a string with a NUL character: MCC_CTX carries it escaped, MCC_CTX_NUL is left out and named, no runner breaks', async () => {
    const c = await session('nul-value', { nul: 'a\u0000b' });
    for (const key of ['s.report_pty', 's.report_pipe']) {
      const f = fields(await okText(c, 'execute', { key }));
      assert.equal(f.nul, '[unset]', key);
      assert.equal(f.omitted, 'nul');
      assert.equal(f.nuljson, '1');
    }
    for (let round = 0; round < 2; round++) {
      for (const key of ['s.js_ctx', 's.py_ctx', 's.py_ctx_oneshot']) {
        const v = JSON.parse(await okText(c, 'execute', { key })) as { nul: string; same: boolean };
        assert.equal(v.nul, 'a\u0000b', key);
        assert.equal(v.same, true);
      }
    }
    await c.close();
  });

  test('two users never share a JavaScript worker\'s module globals', async () => {
    const alice = await connect(h, { token: ALICE_TOKEN });
    const bob = await connect(h, { token: BOB_TOKEN });
    assert.deepEqual(JSON.parse(await okText(alice, 'execute', { key: 'public.js_remember' })), ['alice']);
    assert.deepEqual(JSON.parse(await okText(bob, 'execute', { key: 'public.js_remember' })), ['bob']);
    assert.deepEqual(JSON.parse(await okText(alice, 'execute', { key: 'public.js_remember' })), ['alice', 'alice']);
    await Promise.all([alice.close(), bob.close()]);
  });
});
