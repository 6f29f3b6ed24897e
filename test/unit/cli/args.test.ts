import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCheckArgs, parseServeArgs, UsageError } from '../../../src/cli/args';

test('defaults', () => {
  const a = parseServeArgs([], { XDG_STATE_HOME: '/state' });
  assert.deepEqual(a.tools, ['tools.yaml']);
  assert.equal(a.host, '127.0.0.1');
  assert.equal(a.port, 0);
  assert.equal(a.state, '/state/mcc/sessions.json');
  assert.equal(a.sessionTtl, 86400);
  assert.equal(a.stdio, false);
  assert.deepEqual(a.groups, ['admin']);
});

test('repeatable --tools and typed numbers', () => {
  const a = parseServeArgs(['--tools', 'a.yaml', '--tools', 'dir', '--port', '8765', '--session-ttl', '5', '--groups', 'ops, dev']);
  assert.deepEqual(a.tools, ['a.yaml', 'dir']);
  assert.equal(a.port, 8765);
  assert.equal(a.sessionTtl, 5);
  assert.deepEqual(a.groups, ['ops', 'dev']);
});

test('bad input is a usage error naming the flag', () => {
  assert.throws(() => parseServeArgs(['--port', 'abc']), (e: unknown) => e instanceof UsageError && /--port/.test(e.message));
  assert.throws(() => parseServeArgs(['--port', '70000']), /--port/);
  assert.throws(() => parseServeArgs(['--session-ttl', '0']), /--session-ttl/);
  assert.throws(() => parseServeArgs(['--bogus']), UsageError);
});

test('MCP session limits: defaults, flags, and bad values', () => {
  assert.deepEqual(parseServeArgs([]).mcpSessions, { idleMs: 1_800_000, perPrincipal: 100, anonymous: 10, total: 1000 });
  const a = parseServeArgs(['--mcp-session-idle', '0', '--mcp-sessions-per-user', '5', '--mcp-sessions-anonymous', '2', '--mcp-sessions-max', '50']);
  assert.deepEqual(a.mcpSessions, { idleMs: 0, perPrincipal: 5, anonymous: 2, total: 50 });
  assert.throws(() => parseServeArgs(['--mcp-session-idle', '-1']), /--mcp-session-idle/);
  assert.throws(() => parseServeArgs(['--mcp-sessions-per-user', '0']), /--mcp-sessions-per-user/);
});

test('the store: default SQLite under the state directory, beside --state, or --store', () => {
  const env = { XDG_STATE_HOME: '/state' };
  assert.deepEqual(parseServeArgs([], env).store, { kind: 'sqlite', path: '/state/mcc/sessions.db' });
  const old = parseServeArgs(['--state', '/srv/s.json'], env);
  assert.deepEqual(old.store, { kind: 'sqlite', path: '/srv/s.db' });
  assert.equal(old.state, '/srv/s.json');
  assert.deepEqual(parseServeArgs(['--store', 'memory:'], env).store, { kind: 'memory' });
  assert.deepEqual(parseServeArgs(['--store', 'sqlite:/data/x.db'], env).store, { kind: 'sqlite', path: '/data/x.db' });
  const redis = parseServeArgs(['--store', 'redis://10.0.0.2:6380/3', '--store-prefix', 'team:', '--stateless'], env);
  assert.deepEqual(redis.store, { kind: 'redis', url: 'redis://10.0.0.2:6380/3' });
  assert.equal(redis.storePrefix, 'team:');
  assert.equal(redis.stateless, true);
  assert.deepEqual(redis.publicHosts, []);
  assert.deepEqual(parseServeArgs(['--public-host', 'mcc.example.com', '--public-host', 'mcc.internal:8443'], env).publicHosts, ['mcc.example.com', 'mcc.internal:8443']);
  // --store names the store; --state stays the file to import.
  assert.equal(parseServeArgs(['--store', 'memory:', '--state', '/old.json'], env).state, '/old.json');
});

test('bad store flags are usage errors', () => {
  for (const [args, why] of [
    [['--store', 'mysql://x'], /not a store/],
    [['--store', 'sqlite:'], /needs a file path/],
    [['--store', 'redis://h:1/zero'], /must be a number/],
    [['--store-prefix', 'p:'], /for a Redis store/],
    [['--store', 'redis://h:1/0', '--store-prefix', ''], /must not be empty/],
    [['--stateless', '--stdio'], /--stateless is for HTTP/],
    [['--public-host', 'https://mcc.example.com'], /--public-host: 'https:\/\/mcc\.example\.com' is not a host name/],
    [['--public-host', 'mcc.example.com', '--stdio'], /--public-host is for HTTP/],
  ] as const) {
    assert.throws(() => parseServeArgs([...args]), (e: unknown) => e instanceof UsageError && why.test(e.message), args.join(' '));
  }
});

test('check: serve\'s options, positional catalogs added to --tools, serve\'s default otherwise', () => {
  assert.deepEqual(parseCheckArgs(['a.yaml', 'dir'], {}).tools, ['a.yaml', 'dir']);
  assert.deepEqual(parseCheckArgs(['--tools', 'a.yaml', 'b.yaml', '--port', '8765'], {}).tools, ['a.yaml', 'b.yaml']);
  assert.deepEqual(parseCheckArgs([], {}).tools, ['tools.yaml']);
  const a = parseCheckArgs(['--users', 'u.yaml', '--user', 'mia', '--expose', 'direct', '--stateless', 'x.yaml'], {});
  assert.deepEqual(a, { tools: ['x.yaml'], users: 'u.yaml', user: 'mia' });
  assert.throws(() => parseCheckArgs(['--expose', 'sideways'], {}), /--expose/);
  assert.throws(() => parseCheckArgs(['--bogus'], {}), UsageError);
  assert.throws(() => parseCheckArgs(['--port', 'abc'], {}), /--port/);
});

test('--metrics: a port alone is loopback, a named host is bound as named, ":PORT" is refused', () => {
  assert.equal(parseServeArgs([]).metrics, undefined);
  assert.deepEqual(parseServeArgs(['--metrics', '9464']).metrics, { host: '127.0.0.1', port: 9464, userLabel: false });
  assert.deepEqual(parseServeArgs(['--metrics', '127.0.0.1:0', '--metrics-users']).metrics, { host: '127.0.0.1', port: 0, userLabel: true });
  assert.deepEqual(parseServeArgs(['--metrics', '0.0.0.0:9464']).metrics, { host: '0.0.0.0', port: 9464, userLabel: false });
  assert.deepEqual(parseServeArgs(['--metrics', '[::1]:9464']).metrics, { host: '::1', port: 9464, userLabel: false });
  assert.throws(() => parseServeArgs(['--metrics', ':9464']), (e: unknown) => e instanceof UsageError && /names no host: write 127\.0\.0\.1:9464 .* or 0\.0\.0\.0:9464/.test(e.message));
  for (const bad of ['', 'host', 'host:', 'host:port', '127.0.0.1:70000', '::1:9464']) assert.throws(() => parseServeArgs(['--metrics', bad]), /--metrics/, bad);
  assert.throws(() => parseServeArgs(['--metrics-users']), /--metrics-users .* give --metrics/);
});
