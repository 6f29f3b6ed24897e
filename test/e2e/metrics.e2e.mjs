// `mcc serve --metrics` scraped by a real Prometheus (Debian's `prometheus`
// package; scripts/e2e-setup.mjs installs it): the test writes a scrape
// config pointing at the metrics endpoint (every second), makes N calls of
// one tool with a real MCP client, then asks Prometheus's HTTP API until the
// call counter of that tool is N, within a bounded wait.
//
//   node scripts/e2e-test.mjs test/e2e/metrics.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { servedLine } from './conformance-serve.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOKEN = `metrics-e2e-token-${process.pid}-0123456789`;
const CALLS = 7;
const CATALOG = 'groups: [public]\ntools:\n  - name: hello\n    exec: echo hello\n  - name: other\n    exec: echo other\n';
// Scrapes every second; a few scrapes and Prometheus's own start fit well inside.
const WAIT_MS = 30_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Ends a process we started: SIGTERM, then SIGKILL if it is still there after 5 s. */
async function end(proc) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Prometheus on a free loopback port, its data in `dir`, scraping `target` (HOST:PORT) every second. */
async function startPrometheus(dir, target) {
  const config = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(
    config,
    ['global:', '  scrape_interval: 1s', '  scrape_timeout: 1s', 'scrape_configs:', '  - job_name: mcc', '    static_configs:', `      - targets: ['${target}']`, ''].join('\n'),
  );
  // Another process may take the port between freePort and Prometheus's bind: then a new port.
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const args = [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'];
    const proc = spawn('prometheus', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    proc.stdout.on('data', (d) => (log += d));
    proc.stderr.on('data', (d) => (log += d));
    const api = `http://127.0.0.1:${port}`;
    const started = Date.now();
    while (proc.exitCode === null && Date.now() - started < WAIT_MS) {
      const ready = await fetch(`${api}/-/ready`).then((r) => r.ok, () => false);
      if (ready) return { proc, api, log: () => log };
      await sleep(200);
    }
    await end(proc);
    if (!/address already in use/.test(log) || attempt >= 3) throw new Error(`prometheus did not become ready on ${api}:\n${log}`);
  }
}

/** The value of the instant query's one series, or undefined when it has none yet. */
async function queryValue(api, query) {
  const r = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = await r.json();
  assert.equal(body.status, 'success', JSON.stringify(body));
  assert.ok(body.data.result.length <= 1, `one series expected: ${JSON.stringify(body.data.result)}`);
  return body.data.result[0] ? Number(body.data.result[0].value[1]) : undefined;
}

describe('Prometheus scrapes mcc serve --metrics', { timeout: 120_000 }, () => {
  let dir;
  let serve;
  let prometheus;

  before(async () => {
    const probe = spawnSync('prometheus', ['--version'], { encoding: 'utf8' });
    // Never a silent skip: the e2e setup installs it.
    if (probe.status !== 0) throw new Error('prometheus is not installed: run npm run e2e:setup (or apt-get install -y prometheus)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-metrics-e2e-'));
    fs.writeFileSync(path.join(dir, 'tools.yaml'), CATALOG);
    const args = ['serve', '--tools', path.join(dir, 'tools.yaml'), '--store', 'memory:', '--user', 'owner', '--metrics', '127.0.0.1:0'];
    const proc = spawn(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCC_TOKEN: TOKEN, MCC_CACHE_DIR: 'off' } });
    serve = { proc, ...(await servedLine(proc)) };
    assert.match(serve.metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'the JSON line names the metrics endpoint');
    prometheus = await startPrometheus(dir, new URL(serve.metrics).host);
  });

  after(async () => {
    await end(prometheus?.proc);
    await end(serve?.proc);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test(`after ${CALLS} calls of a tool, Prometheus's API returns ${CALLS} for its call counter`, async (t) => {
    const client = new Client({ name: 'metrics-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    try {
      // First, so a scrape that sees the last call of public.hello sees this one too.
      const other = await client.callTool({ name: 'execute', arguments: { key: 'public.other', params: {} } });
      assert.equal(other.isError ?? false, false, JSON.stringify(other));
      for (let i = 0; i < CALLS; i++) {
        const r = await client.callTool({ name: 'execute', arguments: { key: 'public.hello', params: {} } });
        assert.equal(r.isError ?? false, false, JSON.stringify(r));
      }
    } finally {
      await client.close();
    }
    const query = 'mcc_calls_total{job="mcc",tool="public.hello",result="ok",principal="owner"}';
    const started = Date.now();
    let last;
    while ((last = await queryValue(prometheus.api, query)) !== CALLS) {
      if (Date.now() - started > WAIT_MS) {
        const targets = await fetch(`${prometheus.api}/api/v1/targets`).then((r) => r.text(), (e) => String(e));
        assert.fail(`after ${WAIT_MS / 1000} s Prometheus answers ${last ?? 'no series'} for ${query}, not ${CALLS}; its targets: ${targets}\nits log:\n${prometheus.log()}\nmcc's log:\n${serve.stderr()}`);
      }
      await sleep(250);
    }
    t.diagnostic(`Prometheus had the count after ${Date.now() - started} ms`);
    assert.equal(await queryValue(prometheus.api, 'mcc_calls_total{tool="public.other"}'), 1);
    assert.equal(await queryValue(prometheus.api, 'sum(mcc_calls_total)'), CALLS + 1);
    assert.equal(await queryValue(prometheus.api, 'up{job="mcc"}'), 1);
  });
});
