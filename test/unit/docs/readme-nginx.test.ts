// README's nginx config for a team is the file the team test runs nginx with
// (examples/team/nginx.conf), character for character, so the two cannot drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..', '..');

function teamSection(readme: string): string {
  const start = readme.indexOf('\n## Run it for a team\n');
  assert.ok(start >= 0, 'README has a section "Run it for a team"');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

test('README "Run it for a team" shows examples/team/nginx.conf exactly, and links it', () => {
  const section = teamSection(readFileSync(join(root, 'README.md'), 'utf8'));
  const blocks = [...section.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'one nginx block in the section');
  assert.equal(blocks[0], readFileSync(join(root, 'examples', 'team', 'nginx.conf'), 'utf8'));
  assert.match(section, /\(examples\/team\/nginx\.conf\)/);
});

test('the instances in README\'s commands are the ones the config names, with its public name', () => {
  const section = teamSection(readFileSync(join(root, 'README.md'), 'utf8'));
  const conf = readFileSync(join(root, 'examples', 'team', 'nginx.conf'), 'utf8');
  const upstream = [...conf.matchAll(/^\s*server (127\.0\.0\.1:\d+) /gm)].map((m) => m[1].split(':')[1]);
  const commands = [...section.matchAll(/mcc serve --stateless --port (\d+)[^\n]*(?:\n[^\n]*\\?){0,2}/g)];
  assert.deepEqual(commands.map((m) => m[1]), upstream);
  const name = /server_name (\S+);/.exec(conf)?.[1];
  assert.ok(name);
  for (const c of commands) assert.ok(c[0].includes(`--public-host ${name}`), c[0]);
});
