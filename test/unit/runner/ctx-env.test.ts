// The session store in the environment, built from frozen identity values:
// the JSON of a frozen value is reused across runs, and what a tool gets is
// exactly what the plain JSON would be, whether a value is frozen or not.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { contextEnv } from '../../../src/core/runner/ctx-env';
import { envBudget } from '../../../src/core/runner/env-limits';

function store(tools: readonly string[]): Record<string, unknown> {
  return { note: 'hi', n: 3, skip: undefined, user: 'ann', email: 'a@x', groups: ['ops'], tools };
}

const manyKeys = (n: number): string[] => Array.from({ length: n }, (_, i) => `group.tool_${String(i).padStart(5, '0')}`);

describe('contextEnv with frozen identity values', () => {
  test('a frozen tools list gives the same variables as a plain one', () => {
    const keys = manyKeys(20);
    const plain = contextEnv(store([...keys]));
    const frozen = contextEnv(store(Object.freeze([...keys])));
    assert.deepEqual(frozen.vars, plain.vars);
    assert.equal(frozen.vars.MCC_CTX, JSON.stringify(store(keys)));
    assert.equal(frozen.vars.MCC_CTX_TOOLS, JSON.stringify(keys));
  });

  test('the same frozen list twice gives the same answer, and so does a larger store', () => {
    const keys = Object.freeze(manyKeys(5000));
    const budget = envBudget(2 * 1024 * 1024);
    const a = contextEnv(store(keys), budget);
    const b = contextEnv({ ...store(keys), extra: 'x'.repeat(10) }, budget);
    try {
      // 5,000 keys do not fit MCC_CTX or MCC_CTX_TOOLS: the file carries them.
      assert.ok(a.vars.MCC_CTX_FILE && b.vars.MCC_CTX_FILE);
      assert.equal(a.vars.MCC_CTX_TOOLS, undefined);
      assert.match(a.vars.MCC_CTX_OMITTED ?? '', /\btools\b/);
      assert.equal(b.vars.MCC_CTX_EXTRA, 'x'.repeat(10));
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  test('a store too large for MCC_CTX goes to a file holding exactly its JSON, removed by dispose', () => {
    const keys = Object.freeze(manyKeys(5000).map((k, i) => (i % 7 === 0 ? `${k}_é` : k)));
    const big = { ...store(keys), note: 'ünïcode ✓', nul: 'a\u0000b' };
    for (const s of [big, { ...big, tools: [...keys] }]) {
      const c = contextEnv(s, envBudget(2 * 1024 * 1024));
      const file = c.vars.MCC_CTX_FILE;
      assert.equal(readFileSync(file, 'utf8'), JSON.stringify(s));
      assert.equal(c.vars.MCC_CTX, undefined);
      c.dispose();
      assert.equal(existsSync(file), false);
      c.dispose(); // twice is fine
    }
  });

  test('MCC_CTX of an empty store and of a small one is their JSON', () => {
    assert.equal(contextEnv({}).vars.MCC_CTX, '{}');
    assert.equal(contextEnv({ a: undefined, b: 'x' }).vars.MCC_CTX, '{"b":"x"}');
  });
});
