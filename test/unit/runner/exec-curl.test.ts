// curl tools as the catalog loader expands them, against a local server.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, execTool, keptExec, param } from './helpers';

// The server's environment minus proxies, which would route 127.0.0.1 away.
const serverEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/_proxy$/i.test(k)));

describe('curl tools', () => {
  let server: Server;
  let base = '';
  const ex = keptExec({ defaultMode: 'pipe', baseEnv: serverEnv });

  before(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith('/redirect')) {
        res.writeHead(302, { location: '/hello?via=redirect' }).end();
        return;
      }
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, type: req.headers['content-type'] ?? null, body, user: req.headers['x-user'] ?? null }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((r) => server.close(r));
  });

  test('a quoted URL with & and templated params', async () => {
    const tool = execTool({
      command: `curl -sL -o - '${base}/hello?a={{ a }}&b=2'`,
      params: [param('a')],
      envPassthrough: true,
    });
    const out = await ex.run(tool, { a: 'x1' }, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual(JSON.parse(out.stdout), { method: 'GET', url: '/hello?a=x1&b=2', type: null, body: '', user: null });
  });

  test('-L follows redirects; the session store reaches curl through the env', async () => {
    const tool = execTool({ command: `curl -sL -o - -H "x-user: $MCC_CTX_USER" '${base}/redirect'`, envPassthrough: true });
    const out = await ex.run(tool, {}, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    const got = JSON.parse(out.stdout) as { url: string; user: string };
    assert.equal(got.url, '/hello?via=redirect');
    assert.equal(got.user, 'alice');
  });

  test('stdin: true with --json @- posts the params as the body', async () => {
    const tool = execTool({
      command: `curl -sL -o - '${base}/items' --json @-`,
      params: [param('name'), param('n', { type: 'int' })],
      stdin: true,
      envPassthrough: true,
    });
    const params = { name: 'wid & get', n: 7 };
    const out = await ex.run(tool, params, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    const got = JSON.parse(out.stdout) as { method: string; type: string; body: string };
    assert.equal(got.method, 'POST');
    assert.equal(got.type, 'application/json');
    assert.deepEqual(JSON.parse(got.body), params);
  });

  test('in the default pty mode too, with a transform', async () => {
    const tool = execTool({ command: `curl -sL -o - '${base}/pty'`, transform: "sed 's/GET/got/'", envPassthrough: true });
    const out = await keptExec({ defaultMode: 'pty', baseEnv: serverEnv }).run(tool, {}, call().ctx);
    assert.equal(out.code, 0, out.stderr);
    assert.equal((JSON.parse(out.stdout) as { method: string }).method, 'got');
  });

  test('curl runs without env_passthrough: the floor has PATH', async () => {
    const out = await ex.run(execTool({ command: `curl -sL -o - '${base}/hello'` }), {}, call().ctx);
    assert.equal(out.code, 0, out.stderr);
  });
});
