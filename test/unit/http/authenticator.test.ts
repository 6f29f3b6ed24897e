import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { AuthConfigError, Authenticator } from '../../../src/core/http/authenticator';
import { parseUsers } from '../../../src/core/http/users-file';

const owner = { token: 'owner-secret-token-000', principal: { user: 'me', email: '', groups: ['admin'], grants: [] } };

test('the owner token authenticates the owner', () => {
  const a = new Authenticator(owner);
  const r = a.authenticate('Bearer owner-secret-token-000');
  assert.ok(r.ok && r.principal.user === 'me');
  assert.ok(a.authenticate('bearer owner-secret-token-000').ok, 'the scheme is case-insensitive');
});

test('wrong, partial, missing and malformed tokens are refused', () => {
  const a = new Authenticator(owner);
  for (const h of ['Bearer owner-secret-token-00', 'Bearer owner-secret-token-0000', 'owner-secret-token-000', 'Basic xyz', '', undefined]) {
    assert.equal(a.authenticate(h).ok, false, String(h));
  }
});

test('users authenticate by token or by token_sha256', () => {
  const sha = createHash('sha256').update('bob-token-abcdefghijkl').digest('hex');
  const users = parseUsers(
    `users:\n  - {user: alice, groups: [ops], token: alice-token-0123456789}\n  - {user: bob, tools: [x.y], token_sha256: ${sha}}\n`,
    'u.yaml',
  );
  const a = new Authenticator(owner, users);
  const alice = a.authenticate('Bearer alice-token-0123456789');
  assert.ok(alice.ok && alice.principal.user === 'alice' && alice.principal.groups[0] === 'ops');
  const bob = a.authenticate('Bearer bob-token-abcdefghijkl');
  assert.ok(bob.ok && bob.principal.grants[0] === 'x.y');
  assert.equal(a.authenticate(`Bearer ${sha}`).ok, false, 'the hash itself is not a token');
});

test('anonymous access only without a token', () => {
  const a = new Authenticator(owner, parseUsers('anonymous: true\n', 'u.yaml'));
  const r = a.authenticate(undefined);
  assert.ok(r.ok && r.principal.user === 'anonymous' && r.principal.groups[0] === 'public');
  assert.equal(a.authenticate('Bearer nope').ok, false);
});

test('configurations that would blur callers are refused', () => {
  const anonOwner = { token: 'owner-secret-token-000', principal: { user: 'anonymous', email: '', groups: ['admin'], grants: [] } };
  assert.throws(() => new Authenticator(anonOwner), AuthConfigError);
  const clash = parseUsers('users:\n  - {user: me, token: abcdefghijklmnopq}\n', 'u.yaml');
  assert.throws(() => new Authenticator(owner, clash), /owner's name/);
  assert.throws(() => new Authenticator({ ...owner, token: 'short' }), /too short/);
});
