// The sample catalog that `npm start` serves loads cleanly and every tool in
// it does what its description says.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { call, connect, okText, REPO, startServe, tempDir, text, type ServeHandle } from './serve-process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

describe('the sample tools.yaml', () => {
  let h: ServeHandle;
  let c: Client;
  before(async () => {
    h = await startServe(['--tools', join(REPO, 'tools.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'sam']);
    c = await connect(h);
  });
  after(async () => {
    await c.close();
    assert.equal(await h.stop(), 0);
    const problems = h.stderr().split('\n').filter((l) => /^\S+ (error|warn) /.test(l));
    assert.deepEqual(problems, [], 'the sample loads and runs without errors or warnings');
  });

  test('lists every tool', async () => {
    const keys = [...(await okText(c, 'describe_tools')).matchAll(/^## (\S+)/gm)].map((m) => m[1]).sort();
    assert.deepEqual(keys, [
      'demo.add', 'demo.advance', 'demo.count_lines', 'demo.grep', 'demo.remember', 'demo.repeat', 'demo.report',
      'demo.slow', 'demo.whoami_echo', 'demo.word_count', 'ops.api_ping', 'public.hello',
    ]);
  });

  test('exec tools: quoting, defaults, lists, flags, overrides, the store', async () => {
    assert.equal(await okText(c, 'execute', { key: 'public.hello', params: { who: "o'brien" } }), "Hello, o'brien! (called by sam)\n");
    assert.equal(await okText(c, 'execute', { key: 'demo.repeat', params: { word: 'hi', times: 2 } }), 'hi\nhi\n');
    assert.match(await okText(c, 'execute', { key: 'demo.grep', params: { pattern: 'SAMPLE-MARKER', path: 'tools.yaml', ignore_case: true } }), /sample-marker/i);
    assert.match(await okText(c, 'execute', { key: 'demo.count_lines', params: { files: ['tools.yaml', 'README.md'] } }), /total/);
    assert.equal(await okText(c, 'execute', { key: 'ops.api_ping' }), 'GET /status with a key of 14 characters\n');
    // Plain commands (tr, sort, uniq, sed) with no env_passthrough: PATH comes from the floor.
    assert.equal(await okText(c, 'execute', { key: 'demo.word_count', params: { text: 'the cat and the hat' } }), '2 the\n1 and\n1 cat\n1 hat\n');
    await okText(c, 'set_session', { name: 'target', value: '10.0.0.5' });
    await okText(c, 'set_session', { name: 'budget', value: 1000 });
    const who = await okText(c, 'execute', { key: 'demo.whoami_echo' });
    assert.match(who, /called by sam\ngroups json: \["admin"\]\ntarget: 10\.0\.0\.5\nbudget: 1000/);
    const slow = await call(c, 'execute', { key: 'demo.slow' });
    assert.equal(slow.isError, true);
    assert.match(text(slow), /timeout after 2s/);
  });

  test('function tools: JavaScript and Python with write-back', async () => {
    assert.deepEqual(JSON.parse(await okText(c, 'execute', { key: 'demo.remember', params: { note: 'one' } })), { count: 1, notes: ['one'], by: 'sam' });
    await okText(c, 'execute', { key: 'demo.remember', params: { note: 'two' } });
    assert.equal(await okText(c, 'get_session', { name: 'notes' }), '["one","two"]');
    assert.equal(await okText(c, 'execute', { key: 'demo.advance', params: { step: 5 } }), '5');
    assert.equal(await okText(c, 'get_session', { name: 'cursor' }), '5');
    assert.equal(await okText(c, 'execute', { key: 'demo.add', params: { a: 40 } }), '42');
    const report = JSON.parse(await okText(c, 'execute', { key: 'demo.report', params: { target: 'db1' } })) as Record<string, unknown>;
    assert.equal(report.called_by, 'sam');
    assert.equal(await okText(c, 'get_session', { name: 'last_target' }), '"db1"');
  });
});
