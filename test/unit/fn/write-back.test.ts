// The executor's contextOut through the real session store's write-back:
// reserved keys stripped, a bad key rejecting the write-back, concurrent
// calls writing different keys losing nothing. Both languages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStore } from '../../../src/core/session/store';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import type { FnTool } from '../../../src/core/catalog/types';
import { ALICE, call, jsTool, pyTool, keptFn } from './helpers';

const kinds: Array<[string, (js: string, py: string) => FnTool]> = [
  ['js', (js) => jsTool(js)],
  ['python', (_js, py) => pyTool(`fnpkg.tools:${py}`, { takesContext: true })],
];

describe('fn write-back through the session store', () => {
  const ex = keptFn({ poolSize: 2 });
  let store: SessionStore;
  before(async () => {
    store = await SessionStore.open({ storage: new MemoryStorage(), sweepIntervalMs: 0 });
  });
  after(async () => {
    store.dispose();
    await ex.dispose();
  });

  async function runWithStore(tool: FnTool, sessionKey: string, params: Record<string, unknown> = {}) {
    const snapshot = { ...ALICE, ...(await store.variables('alice', sessionKey)) };
    const r = await ex.run(tool, params, call(snapshot).ctx);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.contextOut);
    return { r, wb: await store.writeBack('alice', sessionKey, snapshot, r.contextOut) };
  }

  for (const [kind, tool] of kinds) {
    test(`${kind}: a reserved-key spoof is stripped, the rest applied`, async () => {
      const key = `spoof-${kind}`;
      const { wb } = await runWithStore(tool('spoof', 'spoof'), key);
      assert.ok(wb.applied);
      assert.deepEqual(wb.strippedReserved.sort(), ['groups', 'user']);
      assert.deepEqual(await store.variables('alice', key), { note: 'kept' });
    });

    test(`${kind}: a non-slug key rejects the whole write-back, the result still returns`, async () => {
      const key = `bad-${kind}`;
      const { r, wb } = await runWithStore(tool('badKey', 'bad_key'), key);
      assert.equal(r.value, 'still returned');
      assert.equal(wb.applied, false);
      assert.deepEqual(await store.variables('alice', key), {});
    });

    test(`${kind}: concurrent calls writing different keys lose nothing`, async () => {
      const key = `conc-${kind}`;
      const names = ['a', 'b', 'c', 'd'];
      await Promise.all(names.map((n, i) => runWithStore(tool('setKey', 'set_key'), key, { name: n, value: i })));
      assert.deepEqual(await store.variables('alice', key), { a: 0, b: 1, c: 2, d: 3 });
    });
  }
});
