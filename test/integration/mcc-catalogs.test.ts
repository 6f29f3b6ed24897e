// Catalogs written for MCC (test/fixtures/mcc-catalogs) load and run
// unchanged: served by a glob pattern, called through the SDK's Client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parse } from 'yaml';
import Ajv from 'ajv';
import { REPO, call, connect, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

const DIR = join(REPO, 'test', 'fixtures', 'mcc-catalogs');
const TEX = 'tex-token-0123456789abcdef';

describe('catalogs written for MCC', () => {
  let h: ServeHandle;
  let c: Client;
  const state = tempDir();
  before(async () => {
    h = await startServe(
      ['--tools', join(DIR, '*.yaml'), '--users', join(DIR, 'auth', 'users.yaml'), '--state', join(state, 's.json'), '--user', 'mia'],
      { MCC_FIXTURE_LOG_DIR: '/var/log/fixture', MCC_FIXTURE_SERVER_ONLY: 'leaked' },
    );
    c = await connect(h);
  });
  after(async () => {
    await c.close();
    assert.equal(await h.stop(), 0);
  });

  test('every file loads without an error or a warning, and satisfies the tools.yaml schema', async () => {
    const keys = [...(await okText(c, 'describe_tools')).matchAll(/^## (\S+)/gm)].map((m) => m[1]).sort();
    assert.deepEqual(keys, [
      'admin.ops.show_env', 'admin.ops.where', 'public.echo_many', 'public.json_stdin', 'public.log_dir', 'public.sandbox', 'public.search',
      'public.slow_job', 'public.word_count', 'py.adder', 'py.api-call', 'py.fetch_later', 'py.greet', 'py.regex_search', 'py.remember',
      'py.scale', 'text.counted', 'text.shout', 'text.stamp',
    ]);
    assert.deepEqual(h.stderr().split('\n').filter((l) => /^\S+ (error|warn) /.test(l)), []);
    const schema = JSON.parse(readFileSync(join(REPO, 'media', 'tools.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    for (const f of readdirSync(DIR).filter((n) => n.endsWith('.yaml'))) {
      assert.ok(validate(parse(readFileSync(join(DIR, f), 'utf8'))), `${f}: ${JSON.stringify(validate.errors)}`);
    }
  });

  test('exec tools: quoting, flags, lists, load-time ${VAR}, limits and the timeout', async () => {
    assert.equal(await okText(c, 'execute', { key: 'public.echo_many', params: { items: ['a b', "it's"] } }), "a b\nit's\n");
    const readme = 'test/fixtures/mcc-catalogs/README.md';
    assert.match(await okText(c, 'execute', { key: 'public.search', params: { pattern: 'catalogs written for mcc', path: readme, ignore_case: true } }), /^# Catalogs written for MCC$/m);
    assert.equal(await okText(c, 'execute', { key: 'public.log_dir', params: { file: 'a b' } }), '/var/log/fixture/out.txt a b\n');
    assert.equal(await okText(c, 'execute', { key: 'public.sandbox' }), '100\n');
    const slow = await call(c, 'execute', { key: 'public.slow_job' });
    assert.equal(slow.isError, true);
    assert.match(text(slow), /return code -1[\s\S]*timeout after 1s/);
  });

  test('stdin: true sends the params as json.dumps writes them', async () => {
    const out = await okText(c, 'execute', { key: 'public.json_stdin', params: { source: 'café', ratio: 2, tags: ['x'] } });
    assert.equal(out, '{"source": "caf\\u00e9", "ratio": 2.0, "tags": ["x"], "verbose": false}\n');
  });

  test('Python fn tools: introspected, dotted and colon targets, async, overrides, return_type, context write-back', async () => {
    assert.equal(await okText(c, 'execute', { key: 'py.greet', params: { name: 'Ann' } }), 'Hi Ann');
    assert.equal(await okText(c, 'execute', { key: 'py.adder', params: { a: 1 } }), '3');
    assert.deepEqual(JSON.parse(await okText(c, 'execute', { key: 'py.fetch_later', params: { url: 'u' } })), { url: 'u', fetched: true });
    assert.deepEqual(JSON.parse(await okText(c, 'execute', { key: 'py.api-call', params: { endpoint: '/x' } })), { endpoint: '/x', key_length: 18 });
    assert.deepEqual(JSON.parse(await okText(c, 'execute', { key: 'py.regex_search', params: { pattern: 'a.', string: 'abacad' } })), ['ab', 'ac', 'ad']);
    assert.equal(await okText(c, 'execute', { key: 'py.remember', params: { note: 'n1' } }), '1');
    assert.equal(await okText(c, 'execute', { key: 'py.remember', params: { note: 'n2' } }), '2');
    assert.equal(await okText(c, 'get_session', { name: 'notes' }), '["n1","n2"]');
    const scale = await okText(c, 'search', { query: 'scales a value' });
    assert.match(scale, /## py\.scale \(value:float, factor:float=2\.0\) -> float/, 'return_type shows in the signature');
    const hidden = await okText(c, 'search', { query: 'internal API endpoint' });
    assert.doesNotMatch(hidden, /api_key|fixture-secret/, 'override params stay hidden');
  });

  test('env, env_file and cwd; the server environment stays out without env_passthrough', async () => {
    assert.equal(await okText(c, 'execute', { key: 'admin.ops.show_env' }), 'debug|from-env-file|unset');
    assert.equal(await okText(c, 'execute', { key: 'admin.ops.where' }), `${join(DIR, 'mccfix')}\n`);
  });

  test('transform (a list joined with |) and cache_ttl work for exec and function tools alike', async () => {
    assert.equal(await okText(c, 'execute', { key: 'text.shout', params: { words: 'hello big world' } }), 'HELLO_BIG_WORLD\n');
    const first = await okText(c, 'execute', { key: 'text.stamp', params: { word: 'w' } });
    assert.match(first, /^W \d+(\.\d+)?\n$/, "the function's value went through jq");
    assert.equal(await okText(c, 'execute', { key: 'text.stamp', params: { word: 'w' } }), first, 'the second call came from the cache');
    const file = join(state, 'count');
    assert.equal(await okText(c, 'execute', { key: 'text.counted', params: { file } }), '1\n');
    assert.equal(await okText(c, 'execute', { key: 'text.counted', params: { file } }), '1\n');
    assert.equal(readFileSync(file, 'utf8'), 'run\n');
  });

  test("a users-file group 'te.*' reaches every group starting with 'te', and nothing else", async () => {
    const tex = await connect(h, { token: TEX });
    try {
      const keys = [...(await okText(tex, 'describe_tools')).matchAll(/^## (\S+)/gm)].map((m) => m[1]);
      assert.ok(keys.includes('text.shout') && keys.includes('text.stamp'));
      assert.ok(!keys.some((k) => k.startsWith('py.') || k.startsWith('admin.')), keys.join(', '));
      assert.equal(await okText(tex, 'execute', { key: 'text.shout', params: { words: 'ok' } }), 'OK\n');
      const refused = await call(tex, 'execute', { key: 'admin.ops.show_env' });
      assert.match(text(refused), /Unauthorized: user 'tex' may not run 'admin\.ops\.show_env'/);
    } finally {
      await tex.close();
    }
  });
});
