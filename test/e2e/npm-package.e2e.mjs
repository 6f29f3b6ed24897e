// The npm package as a user gets it: `npm pack` here, then `npm install -g`
// of the tarball into an empty prefix and `npx` of it, both outside the
// repository, so nothing resolves from its node_modules. The installed `mcc`
// answers --version and --help, serves a real MCP client (a SQLite store,
// which loads better-sqlite3, and a tool in a pty, which loads node-pty) with
// its metrics (prom-client, bundled) and checks catalogs. Slow (npm compiles
// the two native modules; ~70 s on 2 cores), so it runs with the e2e suites:
//
//   node scripts/e2e-test.mjs test/e2e/npm-package.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { npmChildEnv } from '../../scripts/npm-child-env.mjs';
import { servedLine } from './conformance-serve.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TOKEN = 'npm-package-owner-token-0123456789';
// What runs, and nothing else: no maps, sources, tests, VSIX or the extension's bundle.
const PACKED = ['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json', 'dist/cli.js', 'dist/cli-main.js', 'dist/catalog-prefetch.js', 'dist/lib-js-yaml.js', 'dist/lib-nunjucks.js', 'dist/lib-tinyglobby.js', 'dist/lib-yaml.js', 'dist/worker.js', 'dist/spawner.js', 'dist/sqlite-writer.js', 'dist/redis-storage.js', 'dist/server-metrics.js', 'dist/otel-tracing.js', 'dist/mcc_runner.py'];
const CATALOG = 'tools:\n  - name: hello\n    exec: echo hello {{ who | quote }}\n    params:\n      - name: who\n        type: str\n    pty: true\n';

/** Runs a command to its end; resolves { code, stdout, stderr, ms }. */
function run(cmd, args, opts = {}) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

function must(r, what) {
  assert.equal(r.code, 0, `${what} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Starts `mcc serve` and resolves its JSON line ({ url, token }) and process. */
async function serve(bin, args, opts) {
  const proc = spawn(bin, ['serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  return { ...(await servedLine(proc)), proc };
}

describe('the npm package', { timeout: 600_000 }, () => {
  let dir;
  let tgz;
  let packed;
  let installed;
  let npx;
  const home = () => path.join(dir, 'home');

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-npm-package-'));
    fs.mkdirSync(home());
    // prepack builds dist/ first, as it does for a user packing a clone.
    const pack = must(await run(npm, ['pack', '--json', '--pack-destination', dir], { cwd: repoRoot, env: npmChildEnv() }), 'npm pack');
    packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')))[0];
    tgz = path.join(dir, packed.filename);
    // Both installs compile better-sqlite3 and node-pty: side by side on two cores.
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    const env = npmChildEnv(process.env, { npm_config_update_notifier: 'false' });
    [installed, npx] = await Promise.all([
      run(npm, ['install', '-g', tgz, '--prefix', path.join(dir, 'prefix'), '--prefer-offline', '--no-audit', '--no-fund'], { cwd: work, env }),
      // A cache of its own: npx would otherwise keep a compiled install per tarball path in ~/.npm/_npx.
      run(npm, ['exec', '--yes', '--cache', path.join(dir, 'npx-cache'), '--package', tgz, '--', 'mcc', '--version'], { cwd: work, env }),
    ]);
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('holds what runs and nothing else; its dependencies are the two native modules', () => {
    assert.deepEqual(packed.files.map((f) => f.path).sort(), [...PACKED].sort());
    assert.equal(packed.name, manifest.name);
    const installedManifest = JSON.parse(fs.readFileSync(path.join(dir, 'prefix', 'lib', 'node_modules', manifest.name, 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(installedManifest.bin), ['mcc']);
    assert.equal(path.normalize(installedManifest.bin.mcc), path.normalize('dist/cli.js'));
    assert.deepEqual(Object.keys(installedManifest.dependencies).sort(), ['better-sqlite3', 'node-pty']);
  });

  test('the bundle resolves the native modules from the installed package, each with its compiled addon', async () => {
    must(installed, 'npm install -g');
    const pkg = path.join(dir, 'prefix', 'lib', 'node_modules', manifest.name);
    const script = "for (const m of ['better-sqlite3', 'node-pty']) console.log(require.resolve(m, { paths: [process.argv[1]] }))";
    const r = must(await run(process.execPath, ['-e', script, path.join(pkg, 'dist')], { cwd: home() }), 'require.resolve');
    const [sqlite, pty] = r.stdout.trim().split('\n');
    assert.ok(sqlite.startsWith(path.join(pkg, 'node_modules', 'better-sqlite3') + path.sep), sqlite);
    assert.ok(pty.startsWith(path.join(pkg, 'node_modules', 'node-pty') + path.sep), pty);
    assert.ok(fs.existsSync(path.join(pkg, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')));
    assert.ok(fs.existsSync(path.join(pkg, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node')) || fs.existsSync(path.join(pkg, 'node_modules', 'node-pty', 'prebuilds')));
  });

  test('npm install -g into an empty prefix gives a working mcc: --version, --help', async (t) => {
    must(installed, 'npm install -g');
    t.diagnostic(`npm install -g took ${(installed.ms / 1000).toFixed(1)} s; the package is ${(packed.size / 1024).toFixed(0)} KB`);
    const mcc = path.join(dir, 'prefix', 'bin', 'mcc');
    const opts = { cwd: home(), env: { ...process.env, HOME: home(), MCC_CACHE_DIR: 'off' } };
    assert.equal(must(await run(mcc, ['--version'], opts), 'mcc --version').stdout, `${manifest.version}\n`);
    const help = must(await run(mcc, ['--help'], opts), 'mcc --help').stdout;
    assert.match(help, /^Usage: mcc serve \[options\]/);
    assert.match(help, /mcc check \[options\] \[PATH\]\.\.\./);
    assert.match(help, /--tools PATH/);
  });

  test('npx of the tarball runs mcc', (t) => {
    must(npx, 'npm exec --package <tgz> -- mcc --version');
    t.diagnostic(`npm exec took ${(npx.ms / 1000).toFixed(1)} s`);
    assert.equal(npx.stdout, `${manifest.version}\n`);
  });

  test('mcc serve answers an MCP client: a tool in a pty (node-pty), the session in SQLite (better-sqlite3)', async () => {
    const mcc = path.join(dir, 'prefix', 'bin', 'mcc');
    fs.writeFileSync(path.join(home(), 'tools.yaml'), CATALOG);
    const env = { ...process.env, HOME: home(), XDG_STATE_HOME: path.join(home(), 'state'), MCC_TOKEN: TOKEN, MCC_CACHE_DIR: 'off' };
    const server = await serve(mcc, ['--port', '0', '--user', 'owner', '--metrics', '127.0.0.1:0'], { cwd: home(), env });
    const client = new Client({ name: 'npm-package-test', version: '1.0.0' });
    try {
      assert.equal(server.token, TOKEN);
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      const names = (await client.listTools()).tools.map((x) => x.name).sort();
      assert.deepEqual(names, ['describe_tools', 'execute', 'get_session', 'search', 'set_session']);
      const ran = await client.callTool({ name: 'execute', arguments: { key: 'public.hello', params: { who: 'npm' } } });
      assert.equal(ran.isError ?? false, false, JSON.stringify(ran));
      assert.match(ran.content[0].text, /hello npm/);
      const set = await client.callTool({ name: 'set_session', arguments: { name: 'kept', value: 42 } });
      assert.equal(set.isError ?? false, false, JSON.stringify(set));
      const health = await fetch(new URL('/readyz', server.url));
      assert.equal(health.status, 200);
      // prom-client is bundled into dist/server-metrics.js, which the package must carry.
      const metrics = await (await fetch(server.metrics)).text();
      assert.match(metrics, /^mcc_calls_total\{tool="public\.hello",result="ok",principal="owner"\} 1$/m);
      assert.match(server.stderr(), /sessions in SQLite /);
    } finally {
      await client.close();
      server.proc.kill('SIGTERM');
    }
    assert.ok(fs.existsSync(path.join(home(), 'state', 'mcc', 'sessions.db')), 'the SQLite store was written');
  });

  test('with OTEL_EXPORTER_OTLP_ENDPOINT, mcc serve loads OpenTelemetry from the package and sends the run span on SIGTERM', async () => {
    const mcc = path.join(dir, 'prefix', 'bin', 'mcc');
    fs.writeFileSync(path.join(home(), 'tools.yaml'), CATALOG);
    const bodies = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push({ path: req.url, type: req.headers['content-type'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${receiver.address().port}`;
    const env = { ...process.env, HOME: home(), MCC_TOKEN: TOKEN, MCC_CACHE_DIR: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '60000' };
    const server = await serve(mcc, ['--port', '0', '--store', 'memory:'], { cwd: home(), env });
    const client = new Client({ name: 'npm-package-traces', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      const ran = await client.callTool({ name: 'execute', arguments: { key: 'public.hello', params: { who: 'otel' } } });
      assert.equal(ran.isError ?? false, false, JSON.stringify(ran));
    } finally {
      await client.close();
    }
    const exited = new Promise((resolve) => server.proc.once('exit', resolve));
    server.proc.kill('SIGTERM');
    assert.equal(await exited, 0);
    await new Promise((resolve) => receiver.close(resolve));
    assert.match(server.stderr(), /traces: OTLP\/HTTP to http:\/\/127\.0\.0\.1:/);
    assert.ok(bodies.length > 0, 'the receiver got an export');
    assert.ok(bodies.every((b) => b.path === '/v1/traces' && b.type === 'application/json'), JSON.stringify(bodies.map((b) => [b.path, b.type])));
    assert.ok(bodies.some((b) => b.body.includes('"run public.hello"')), 'the run span was exported');
  });

  test('mcc check: a good catalog exits 0, a bad one exits 1 naming file:line', async () => {
    const mcc = path.join(dir, 'prefix', 'bin', 'mcc');
    const env = { ...process.env, HOME: home(), MCC_CACHE_DIR: 'off' };
    fs.writeFileSync(path.join(home(), 'good.yaml'), CATALOG);
    fs.writeFileSync(path.join(home(), 'bad.yaml'), 'tools:\n  - name: fine\n    exec: echo ok\n  - name: broken\n');
    const good = await run(mcc, ['check', 'good.yaml'], { cwd: home(), env });
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.equal(good.stdout, 'mcc check: 1 tool in 1 file; 0 errors, 0 warnings\n');
    const bad = await run(mcc, ['check', '--tools', 'bad.yaml'], { cwd: home(), env });
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /^bad\.yaml:4: error: tool 'broken': needs exactly one of exec, curl or fn$/m);
  });
});
