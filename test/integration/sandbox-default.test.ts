// `mcc serve --sandbox default` on the sample catalog (tools.yaml and the
// modules it uses in examples/): the tools that only need their folder run
// unchanged inside the default sandbox, describe_tools and the audit line
// say so, and the JavaScript tools are refused with the reason.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, okText, REPO, startServe, tempDir, text, type ServeHandle } from './serve-process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const TOKEN = `sandbox-it-token-${process.pid}-0123456789`;

describe('the sample catalog under mcc serve --sandbox default', () => {
  let h: ServeHandle;
  let c: Client;
  before(async () => {
    h = await startServe(['--tools', join(REPO, 'tools.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'sam', '--sandbox', 'default'], { MCC_TOKEN: TOKEN });
    c = await connect(h);
  });
  after(async () => {
    await c.close();
    assert.equal(await h.stop(), 0);
  });

  test('describe_tools shows each tool in the default sandbox', async () => {
    const listing = await okText(c, 'describe_tools');
    assert.match(listing, /## public\.hello\nSandbox: default\n/);
    assert.match(listing, /## demo\.add\nSandbox: default\n/);
  });

  test('exec and Python tools run unchanged inside it, and the audit line says sandbox=default', async () => {
    assert.equal(await okText(c, 'execute', { key: 'public.hello', params: { who: "o'brien" } }), "Hello, o'brien! (called by sam)\n");
    assert.equal(await okText(c, 'execute', { key: 'demo.word_count', params: { text: 'the cat and the hat' } }), '2 the\n1 and\n1 cat\n1 hat\n');
    assert.match(await okText(c, 'execute', { key: 'demo.grep', params: { pattern: 'SAMPLE-MARKER', path: 'tools.yaml', ignore_case: true } }), /sample-marker/i);
    assert.equal(await okText(c, 'execute', { key: 'demo.add', params: { a: 40 } }), '42');
    const report = JSON.parse(await okText(c, 'execute', { key: 'demo.report', params: { target: 'db1' } })) as Record<string, unknown>;
    assert.equal(report.called_by, 'sam');
    assert.equal(await okText(c, 'get_session', { name: 'last_target' }), '"db1"', 'write-back works from inside the sandbox');
    assert.match(h.stderr(), /call sam bucket=\S+ public\.hello .* -> 0 in \d+ ms sandbox=default/);
    assert.match(h.stderr(), /demo\.add .* -> 0 in \d+ ms sandbox=default/);
  });

  test("the server's /proc entry, which holds MCC_TOKEN, does not exist inside", async () => {
    const environ = `/proc/${h.proc.pid}/environ`;
    assert.ok(readFileSync(environ, 'utf8').includes(TOKEN), "control: the server's environment holds the token");
    const r = await call(c, 'execute', { key: 'demo.grep', params: { pattern: 'MCC_TOKEN', path: environ } });
    assert.equal(r.isError, true);
    assert.match(text(r), /No such file or directory/);
    assert.ok(!text(r).includes(TOKEN));
  });

  test('JavaScript tools are refused, saying why and what to do', async () => {
    const r = await call(c, 'execute', { key: 'demo.remember', params: { note: 'one' } });
    assert.equal(r.isError, true);
    assert.match(text(r), /cannot be sandboxed; set 'sandbox: false'/);
  });
});
