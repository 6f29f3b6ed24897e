// What a principal may run is computed once per catalog and principal, and
// what is handed out cannot be changed by the caller that got it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { AccessCache } from '../../../src/core/call/access-cache';
import type { Principal } from '../../../src/core/identity';
import type { ToolDef } from '../../../src/core/catalog/types';
import { execTool } from '../catalog/tooldef';

const tools: ToolDef[] = [
  execTool('deploy', [], { groups: ['ops'] }),
  execTool('status', [], { groups: ['public'] }),
  execTool('rotate', [], { groups: ['admin'] }),
];
const ann: Principal = { user: 'ann', email: 'ann@x', groups: ['ops'], grants: [] };

describe('AccessCache', () => {
  test('filters once per principal and hands out the same frozen list', () => {
    let reads = 0;
    const cache = new AccessCache(() => {
      reads++;
      return tools;
    });
    const first = cache.toolsFor(ann);
    const again = cache.toolsFor({ ...ann, groups: [...ann.groups] });
    assert.equal(again, first);
    assert.equal(reads, 1);
    assert.deepEqual(first.map((t) => t.key), ['ops.deploy', 'public.status']);
    assert.ok(Object.isFrozen(first));
    assert.throws(() => (first as ToolDef[]).push(tools[2]), TypeError);
  });

  test('the identity keys are frozen, sorted, and per user', () => {
    const cache = new AccessCache(() => tools);
    const id = cache.identityOf(ann);
    assert.deepEqual(id, { user: 'ann', email: 'ann@x', groups: ['ops'], tools: ['ops.deploy', 'public.status'] });
    assert.throws(() => (id.tools).push('admin.rotate'), TypeError);
    assert.throws(() => ((id as { user: string }).user = 'eve'), TypeError);
    const bob = cache.identityOf({ ...ann, user: 'bob' });
    assert.equal(bob.user, 'bob');
    assert.equal(bob.tools, id.tools, 'same access, same list');
  });

  test('different grants are different access; clear() reads the catalog again', () => {
    let current = tools;
    const cache = new AccessCache(() => current);
    assert.equal(cache.toolsFor({ ...ann, grants: ['admin.rotate'] }).length, 3);
    assert.equal(cache.toolsFor(ann).length, 2);
    current = tools.slice(1);
    assert.equal(cache.toolsFor(ann).length, 2, 'cached until cleared');
    cache.clear();
    assert.deepEqual(cache.toolsFor(ann).map((t) => t.key), ['public.status']);
  });
});
