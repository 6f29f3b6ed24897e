import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseStoreSpec, sqlitePathFor } from '../../../src/core/session/store-spec';

test('store specs: relative and ~ SQLite paths, Redis URLs with TLS and credentials', () => {
  assert.deepEqual(parseStoreSpec('sqlite:rel/s.db', '/work'), { kind: 'sqlite', path: '/work/rel/s.db' });
  assert.deepEqual(parseStoreSpec('sqlite:~/s.db'), { kind: 'sqlite', path: join(homedir(), 's.db') });
  assert.deepEqual(parseStoreSpec('rediss://u:p@cache.internal:6380'), { kind: 'redis', url: 'rediss://u:p@cache.internal:6380' });
  assert.deepEqual(parseStoreSpec('memory'), { kind: 'memory' });
  assert.ok('error' in parseStoreSpec('redis://'));
  assert.ok('error' in parseStoreSpec('file:/x'));
});

test('the SQLite file beside a version 1 state file', () => {
  assert.equal(sqlitePathFor('/s/sessions.json'), '/s/sessions.db');
  assert.equal(sqlitePathFor('/s/state'), '/s/state.db');
});
