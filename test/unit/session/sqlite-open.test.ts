import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { retryBusy } from '../../../src/core/session/sqlite-schema';

const busy = (): Error => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

void describe('opening a SQLite file another process opens at the same moment', () => {
  void test('an immediate SQLITE_BUSY is tried again after short, growing pauses', () => {
    const pauses: number[] = [];
    let tries = 0;
    const value = retryBusy(
      () => {
        if (++tries < 4) throw busy();
        return 42;
      },
      10_000,
      (ms) => void pauses.push(ms),
    );
    assert.equal(value, 42);
    assert.deepEqual(pauses, [5, 10, 20]);
  });

  void test('any other error is thrown at once, and SQLITE_BUSY once the budget is spent', () => {
    let tries = 0;
    assert.throws(() => retryBusy(() => { tries++; throw new Error('disk I/O error'); }, 10_000, () => undefined), /disk I\/O error/);
    assert.equal(tries, 1);
    assert.throws(() => retryBusy(() => { throw busy(); }, 0, () => undefined), /database is locked/);
  });
});
