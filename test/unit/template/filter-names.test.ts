// Templates are checked at load time against a list of filter names, so
// loading a catalog needs no nunjucks; the list must be what the
// environment that renders them has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { environmentFilterNames, FILTER_NAMES } from '../../../src/core/template/render';

test('the filter names known without nunjucks are the environment’s', () => {
  assert.deepEqual([...FILTER_NAMES].sort(), environmentFilterNames().sort());
});

