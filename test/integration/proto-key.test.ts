// A key named `__proto__` is data like any other, through the real `mcc
// serve` and the SDK's Client, on every store: set_session then get_session
// give it back; a JavaScript tool sees it in `context` and writes one back;
// a shell tool sees it in MCC_CTX and MCC_CTX_<NAME>; a dict param keeps it,
// and cache_ttl tells it apart from a param without it. A catalog cannot
// name a param or an environment variable `__proto__`, and a top-level
// `__proto__` key of a catalog file is an unknown field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, okText, startServe, tempDir, type ServeHandle } from './serve-process';
import { startRedis, type RedisServer } from '../support/redis-server';
import { loadCatalog } from '../../src/core/catalog/load';

// Parsed, as a client's JSON arrives: an own property named __proto__.
const VALUE = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as Record<string, unknown>;
const VALUE_JSON = '{"__proto__":{"x":1},"a":1}';

function catalog(dir: string): string {
  writeFileSync(
    join(dir, 'tools.yaml'),
    `groups: [p]
tools:
  - name: js_ctx
    fn: ./ctx.mjs:ctx
    params: []
  - name: ctx_env
    pty: false
    exec: 'printf "%s\\n%s\\n" "$MCC_CTX_OBJ" "$MCC_CTX"'
  - name: dict_param
    pty: false
    params: [{name: d, type: dict}]
    exec: 'printf "%s" {{ d | tojson | quote }}'
  - name: cached
    pty: false
    cache_ttl: 60
    params: [{name: d, type: dict}]
    exec: 'printf "%s" {{ d | tojson | quote }}'
`,
  );
  writeFileSync(
    join(dir, 'ctx.mjs'),
    `export function ctx(_p, context) {
  const own = Object.hasOwn(context.obj, '__proto__');
  context.back = JSON.parse('{"__proto__": {"y": 2}, "b": 2}');
  return { own, seen: context.obj.__proto__ };
}
`,
  );
  return join(dir, 'tools.yaml');
}

const STORES = ['sqlite', 'memory', 'redis'] as const;

for (const store of STORES) {
  describe(`a key named __proto__ is kept (${store} store)`, () => {
    let h: ServeHandle;
    let redis: RedisServer | undefined;
    let c: Client;
    const dir = tempDir();
    before(async () => {
      const tools = catalog(dir);
      const args = ['--tools', tools, '--user', 'owner', '--state', join(dir, 's.json')];
      if (store === 'memory') args.push('--store', 'memory');
      if (store === 'redis') {
        redis = await startRedis();
        args.push('--store', redis.url);
      }
      h = await startServe(args);
      c = await connect(h, { sessionKey: `proto-${store}` });
    });
    after(async () => {
      await c.close();
      assert.equal(await h.stop(), 0);
      await redis?.stop();
    });

    test('set_session then get_session give the object back whole', async () => {
      await okText(c, 'set_session', { name: 'obj', value: VALUE });
      assert.equal(await okText(c, 'get_session', { name: 'obj' }), VALUE_JSON);
    });

    test('a JavaScript tool sees it in context and writes one back', async () => {
      const seen = JSON.parse(await okText(c, 'execute', { key: 'p.js_ctx' })) as { own: boolean; seen: unknown };
      assert.deepEqual(seen, { own: true, seen: { x: 1 } });
      assert.equal(await okText(c, 'get_session', { name: 'back' }), '{"__proto__":{"y":2},"b":2}');
    });

    test('a shell tool sees it in MCC_CTX_<NAME> and MCC_CTX', async () => {
      const [own, whole] = (await okText(c, 'execute', { key: 'p.ctx_env' })).split('\n');
      assert.equal(own, VALUE_JSON);
      assert.deepEqual(Object.keys((JSON.parse(whole) as { obj: object }).obj), ['__proto__', 'a']);
    });

    test('a dict param keeps it, and the cache tells it apart', async () => {
      assert.equal(await okText(c, 'execute', { key: 'p.dict_param', params: { d: VALUE } }), VALUE_JSON);
      assert.equal(await okText(c, 'execute', { key: 'p.dict_param', params: JSON.stringify({ d: VALUE }) }), VALUE_JSON);
      assert.equal(await okText(c, 'execute', { key: 'p.cached', params: { d: { a: 1 } } }), '{"a":1}');
      assert.equal(await okText(c, 'execute', { key: 'p.cached', params: { d: VALUE } }), VALUE_JSON);
    });

    test('a top-level params key __proto__ is refused as an unknown parameter, not dropped', async () => {
      const r = await c.callTool({ name: 'execute', arguments: { key: 'p.dict_param', params: JSON.parse('{"__proto__": {"d": {}}}') as object } });
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r.content), /unknown parameter '__proto__'/);
    });
  });
}

test('a catalog cannot name a param or an environment variable __proto__', async () => {
  const dir = tempDir();
  const file = join(dir, 'tools.yaml');
  writeFileSync(file, `tools:\n  - name: a\n    params: [{name: __proto__}]\n    exec: 'true'\n  - name: b\n    env: {__proto__: x}\n    exec: 'true'\n`);
  const loaded = await loadCatalog([file], { env: {} });
  const messages = loaded.diagnostics.map((d) => d.message).join('\n');
  assert.match(messages, /parameter name '__proto__' is reserved/);
  assert.match(messages, /cannot name a variable __proto__/);
  // A top-level key of that name is an unknown field like any other, not the settings' prototype.
  const top = join(dir, 'top.yaml');
  writeFileSync(top, `__proto__: {groups: [x]}\ntools:\n  - {name: c, exec: 'true'}\n`);
  const topLoaded = await loadCatalog([top], { env: {} });
  assert.match(topLoaded.diagnostics.map((d) => d.message).join('\n'), /unknown top-level field '__proto__'/);
  assert.deepEqual([...topLoaded.tools.keys()], ['public.c'], 'its groups were not read as the file default');
});
