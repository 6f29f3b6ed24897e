// The setup scripts start their own `npm install` (code-server, node@24) from
// inside `npm start` / `npm test`; the inner npm must not inherit the outer
// run's variables (code-server's postinstall reads npm_config_user_agent and
// refuses the outer Node). Checked against the environment a real `npm run`
// hands its script, so a new variable npm adds is caught here in seconds.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const root = join(__dirname, '..', '..', '..', '..');
type NpmChildEnv = (env?: NodeJS.ProcessEnv, extra?: Record<string, string>) => Record<string, string>;
let npmChildEnv: NpmChildEnv;

/** What a script started by `npm run` sees, from a real npm. */
function envInsideNpmRun(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-npm-env-'));
  try {
    const script = 'node -e "process.stdout.write(JSON.stringify(process.env))"';
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', scripts: { probe: script } }));
    const out = execFileSync('npm', ['run', '--silent', 'probe'], { cwd: dir, encoding: 'utf8' });
    return JSON.parse(out) as Record<string, string>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('npmChildEnv', () => {
  let inside: Record<string, string>;
  before(async () => {
    const mod = (await import(join(root, 'scripts', 'npm-child-env.mjs'))) as { npmChildEnv: NpmChildEnv };
    npmChildEnv = mod.npmChildEnv;
    inside = envInsideNpmRun();
  });

  test('a real npm run hands its script the variables that broke the inner install', () => {
    // Guards the test itself: if npm stopped setting these, the next test would prove nothing.
    assert.match(inside.npm_config_user_agent ?? '', /node\/v\d+/);
    assert.equal(inside.npm_lifecycle_event, 'probe');
    assert.ok(Object.keys(inside).some((k) => k.startsWith('npm_package_')));
  });

  test('no npm_config_*, npm_lifecycle_* or npm_package_* of the outer run survive', () => {
    const clean = npmChildEnv(inside);
    const left = Object.keys(clean).filter((k) => /^npm_(config|lifecycle|package)_/i.test(k) && !/^npm_config_(registry|proxy|https_proxy|http_proxy|noproxy|cafile|ca|strict_ssl)$/i.test(k));
    assert.deepEqual(left, []);
    for (const k of ['npm_config_user_agent', 'npm_config_nodedir', 'npm_execpath', 'npm_node_execpath', 'npm_command', 'INIT_CWD', 'NODE']) {
      assert.equal(clean[k], undefined, `${k} must not reach the child npm`);
    }
  });

  test('PATH loses the node_modules/.bin folders npm prepended and keeps the rest in order', () => {
    const clean = npmChildEnv(inside);
    const before = (inside.PATH ?? '').split(delimiter);
    assert.ok(before.some((p) => p.endsWith(join('node_modules', '.bin'))), 'npm run prepends node_modules/.bin');
    const after = (clean.PATH ?? '').split(delimiter);
    assert.ok(after.every((p) => !p.includes('node_modules/.bin') && !p.includes('node-gyp-bin')), after.join(delimiter));
    assert.deepEqual(after, before.filter((p) => p && !p.includes('node_modules/.bin') && !p.includes('node-gyp-bin')));
    assert.ok(after.length > 0);
  });

  test('the machine\'s own variables stay, the caller\'s extras win, the input is not changed', () => {
    const env = { HOME: '/home/u', LANG: 'C.UTF-8', npm_config_user_agent: 'npm/11 node/v20', npm_config_registry: 'http://registry.local/', PATH: '/a/node_modules/.bin:/usr/bin' };
    const clean = npmChildEnv(env, { npm_config_nodedir: '/opt/node24', PATH: '/opt/node24/bin:/usr/bin' });
    assert.deepEqual(clean, { HOME: '/home/u', LANG: 'C.UTF-8', npm_config_registry: 'http://registry.local/', npm_config_nodedir: '/opt/node24', PATH: '/opt/node24/bin:/usr/bin' });
    assert.equal(env.npm_config_user_agent, 'npm/11 node/v20');
  });

  test('upper-case spellings are removed too (npm reads config case-insensitively)', () => {
    const clean = npmChildEnv({ NPM_CONFIG_USER_AGENT: 'x', Npm_Lifecycle_Event: 'test', HOME: '/h' });
    assert.deepEqual(clean, { HOME: '/h' });
  });
});
