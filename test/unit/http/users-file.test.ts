import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUsers, UsersFileError } from '../../../src/core/http/users-file';

test('${VAR} substitution applies', () => {
  const u = parseUsers('users:\n  - user: a\n    token: ${TOK}\n', 'u.yaml', { TOK: 'from-the-environment-123' });
  assert.equal(u.users[0].token, 'from-the-environment-123');
});

test('errors name the file and what is wrong', () => {
  const cases: Array<[string, RegExp]> = [
    ['users: [\n', /u\.yaml:\d+: invalid YAML/],
    ['users: {a: 1}\n', /'users' must be a list/],
    ['users:\n  - {email: x, token: abcdefghijklmnopq}\n', /'user' is required/],
    ['users:\n  - {user: a}\n', /'token' or 'token_sha256'/],
    ['users:\n  - {user: a, token: short}\n', /too short/],
    ['users:\n  - {user: a, token_sha256: abc}\n', /64 hex/],
    ['users:\n  - {user: a, token: abcdefghijklmnopq}\n  - {user: a, token: bbcdefghijklmnopq}\n', /appears twice/],
    ['users:\n  - {user: anonymous, token: abcdefghijklmnopq}\n', /reserved/],
    ['anonymous: yes please\n', /true or false/],
    ['users:\n  - {user: a, groups: ops, token: abcdefghijklmnopq}\n', /groups must be a list/],
  ];
  for (const [text, re] of cases) {
    assert.throws(() => parseUsers(text, 'u.yaml'), (e: unknown) => e instanceof UsersFileError && re.test(e.message), text);
  }
});

test('an empty file means no users and no anonymous access', () => {
  assert.deepEqual(parseUsers('', 'u.yaml'), { users: [], anonymous: false });
});

test('unknown keys are reported as warnings, known ones are not', () => {
  const u = parseUsers('users:\n  - {user: a, group: [ops], token: abcdefghijklmnopq}\nanonimous: true\n', 'u.yaml');
  assert.deepEqual(u.users[0].principal.groups, []);
  assert.equal(u.anonymous, false);
  assert.equal(u.warnings?.length, 2);
  assert.match(u.warnings[0], /unknown key 'anonimous'/);
  assert.match(u.warnings[1], /users\[0\]: unknown key 'group' ignored/);
  assert.equal(parseUsers('users:\n  - {user: a, groups: [ops], token: abcdefghijklmnopq}\n', 'u.yaml').warnings, undefined);
});
