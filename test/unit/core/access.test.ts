import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canAccess, accessibleTools } from '../../../src/core/access';
import type { ToolDef } from '../../../src/core/catalog/types';
import type { Principal } from '../../../src/core/identity';

function tool(key: string, groups: string[]): ToolDef {
  return {
    kind: 'exec', key, name: key.split('.').pop()!, description: '', groups, params: [], env: {}, envPassthrough: false,
    limits: {}, stdin: false, source: { file: '/t.yaml', line: 1 }, catalogDir: '/', command: 'true',
  };
}
const p = (groups: string[], grants: string[] = []): Principal => ({ user: 'u', email: '', groups, grants });

test('public tools are open to everyone, even without groups', () => {
  assert.equal(canAccess(p([]), tool('public.x', ['public'])), true);
});

test('admins may run everything', () => {
  assert.equal(canAccess(p(['admin']), tool('ops.x', ['ops'])), true);
});

test('a shared group grants access, a different one does not', () => {
  assert.equal(canAccess(p(['ops']), tool('ops.x', ['ops', 'net'])), true);
  assert.equal(canAccess(p(['dev']), tool('ops.x', ['ops'])), false);
});

test('an explicit grant by key grants exactly that tool', () => {
  assert.equal(canAccess(p([], ['ops.x']), tool('ops.x', ['ops'])), true);
  assert.equal(canAccess(p([], ['ops.x']), tool('ops.y', ['ops'])), false);
});

test('accessibleTools filters and sorts by key', () => {
  const tools = [tool('ops.b', ['ops']), tool('dev.a', ['dev']), tool('ops.a', ['ops']), tool('public.z', ['public'])];
  assert.deepEqual(accessibleTools(p(['ops']), tools).map((t) => t.key), ['ops.a', 'ops.b', 'public.z']);
});

test("a caller group ending in '.*' grants every group with that prefix, never the admin group", () => {
  assert.equal(canAccess(p(['ops.*']), tool('ops.x', ['ops'])), true);
  assert.equal(canAccess(p(['ops.*']), tool('ops-east.x', ['ops-east'])), true);
  assert.equal(canAccess(p(['ops.*']), tool('net.ops.x', ['net', 'ops_db'])), true);
  assert.equal(canAccess(p(['ops.*']), tool('dev.x', ['dev'])), false);
  assert.equal(canAccess(p(['ops.*']), tool('op.x', ['op'])), false);
  assert.equal(canAccess(p(['.*']), tool('any.x', ['any'])), true);
  assert.equal(canAccess(p(['.*']), tool('admin.x', ['admin'])), false);
  assert.equal(canAccess(p(['a.*']), tool('admin.y', ['admin'])), false);
  // Without the suffix a group is a name, not a pattern.
  assert.equal(canAccess(p(['ops*']), tool('ops.x', ['ops'])), false);
  assert.equal(canAccess(p(['o.s']), tool('ops.x', ['ops'])), false);
});

test('a pattern never grants a tool of the admin group, whether admin is its first, second or only group', () => {
  const adminTools = [tool('admin.t1', ['admin']), tool('admin.atlas.t2', ['admin', 'atlas']), tool('atlas.admin.t3', ['atlas', 'admin'])];
  for (const pattern of ['atlas.*', 'at.*', '.*', 'a.*', 'admin.*', 'adm.*']) {
    for (const t of adminTools) assert.equal(canAccess(p([pattern]), t), false, `${pattern} must not grant ${t.key}`);
    // The same pattern still grants a tool of its groups that is not an admin tool.
    assert.equal(canAccess(p([pattern]), tool('atlas.t4', ['atlas'])), pattern !== 'admin.*' && pattern !== 'adm.*', `${pattern} and atlas.t4`);
  }
  // A group named exactly, an explicit grant and the admin group itself still do.
  assert.equal(canAccess(p(['atlas']), adminTools[1]), true);
  assert.equal(canAccess(p(['atlas.*'], ['admin.atlas.t2']), adminTools[1]), true);
  assert.equal(canAccess(p(['admin']), adminTools[0]), true);
});
