// Function tools through MCP: the context argument, write-back into the
// caller's bucket, and the guarantees around it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { call, connect, FIXTURES, okText, startServe, tempDir, text, type ServeHandle } from './serve-process';

describe('function tools over MCP', () => {
  let h: ServeHandle;
  before(async () => {
    h = await startServe(['--tools', join(FIXTURES, 'fn-tools.yaml'), '--state', join(tempDir(), 's.json'), '--user', 'dana']);
  });
  after(async () => {
    assert.equal(await h.stop(), 0);
  });

  test('a JS tool writes back through context', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'execute', { key: 'fn.bump', params: { by: 2 } }), '2');
    assert.equal(await okText(c, 'execute', { key: 'fn.bump' }), '3');
    assert.equal(await okText(c, 'get_session', { name: 'count' }), '3');
    assert.equal(await okText(c, 'get_session', { name: 'last_user' }), '"dana"');
    await c.close();
  });

  test('identity keys cannot be written back', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'execute', { key: 'fn.spoof' }), 'tried');
    assert.equal(await okText(c, 'get_session', { name: 'user' }), '"dana"');
    assert.deepEqual(JSON.parse(await okText(c, 'get_session', { name: 'groups' })), ['admin']);
    assert.equal(await okText(c, 'get_session', { name: 'spoofed' }), 'true');
    await c.close();
  });

  test('a non-slug key rejects the whole write-back, the result still returns', async () => {
    const c = await connect(h);
    assert.equal(await okText(c, 'execute', { key: 'fn.bad_key' }), 'result still returned');
    assert.equal(await okText(c, 'get_session', { name: 'would_be_set' }), 'null');
    await c.close();
  });

  test('a Python tool gets typed context, hides it from its signature, and writes back', async () => {
    const c = await connect(h);
    await okText(c, 'set_session', { name: 'budget', value: 1000 });
    await okText(c, 'set_session', { name: 'drop_me', value: 'x' });
    const out = JSON.parse(await okText(c, 'execute', { key: 'fn.stash', params: { label: 'L1', tags: ['a', 'b'] } })) as {
      user: string;
      types: Record<string, string>;
    };
    assert.equal(out.user, 'dana');
    assert.equal(out.types.budget, 'int');
    assert.equal(out.types.groups, 'list');
    assert.equal(await okText(c, 'get_session', { name: 'label' }), '"L1"');
    assert.equal(await okText(c, 'get_session', { name: 'tags' }), '["a","b"]');
    assert.equal(await okText(c, 'get_session', { name: 'drop_me' }), 'null');
    const hits = (await okText(c, 'search', { query: 'stash label tags' })).split('\n\n');
    const sig = hits.find((b) => b.includes('## fn.stash')) ?? '';
    assert.match(sig, /## fn\.stash \(label:str, tags:list=None\) -> dict/);
    assert.doesNotMatch(sig, /context/);
    const r = await call(c, 'execute', { key: 'fn.stash', params: { label: 'x', context: {} } });
    assert.equal(r.isError, true, 'callers can never pass context');
    assert.match(text(r), /context/);
    await c.close();
  });
});
