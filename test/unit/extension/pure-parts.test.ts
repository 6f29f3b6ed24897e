import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ParamSpec, ToolDef } from '../../../src/core/catalog/types';
import { callerParams, toolGroups, toolNodes, toolTooltip } from '../../../src/extension/tools-model';
import { parseParamInput, paramInitialValue } from '../../../src/extension/param-input';
import { canonicalHeader, connectionConfig, definitionData } from '../../../src/extension/connection';
import { readSettings, sweepIntervalMs } from '../../../src/extension/settings';
import { exitLabel, formatExited, formatOutput, formatStarted, toCrlf } from '../../../src/extension/terminal-format';
import { STATUS_MENU, statusText } from '../../../src/extension/status-text';
import { resolveCatalogPaths } from '../../../src/extension/catalog-paths';
import { problemsByFile } from '../../../src/extension/diagnostics-model';
import { formatAudit } from '../../../src/extension/log';
import { EXPOSE_MODES } from '../../../src/core/expose';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const param = (name: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ name, type: 'str', required: true, hasDefault: false, hasOverride: false, ...extra });

function tool(key: string, params: ParamSpec[] = []): ToolDef {
  const parts = key.split('.');
  return {
    kind: 'exec',
    key,
    name: parts[parts.length - 1],
    description: `Tool ${key}\nmore`,
    groups: parts.slice(0, -1),
    params,
    env: {},
    envPassthrough: false,
    limits: {},
    stdin: false,
    source: { file: '/w/tools.yaml', line: 3 },
    catalogDir: '/w',
    command: 'echo hi',
  };
}

/** Markdown lines split into those inside code fences and those rendered as Markdown. */
function tooltipLines(md: string): { code: string[]; prose: string[] } {
  const out = { code: [] as string[], prose: [] as string[] };
  let inCode = false;
  for (const line of md.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    else if (line.trim() !== '') (inCode ? out.code : out.prose).push(line);
  }
  return out;
}

void describe('tools model', () => {
  void test('group -> tool, sorted, with the signature as tooltip', () => {
    const groups = toolGroups([tool('demo.zeta'), tool('public.hello'), tool('demo.alpha'), tool('admin.ops.deploy')]);
    assert.deepEqual(groups.map((g) => [g.label, g.description]), [['admin.ops', '1 tool'], ['demo', '2 tools'], ['public', '1 tool']]);
    const nodes = toolNodes(groups[1]);
    assert.deepEqual(nodes.map((n) => [n.label, n.description, n.contextValue]), [
      ['alpha', 'Tool demo.alpha', 'mcc.tool'],
      ['zeta', 'Tool demo.zeta', 'mcc.tool'],
    ]);
    assert.equal(nodes[0].tooltip, '```text\ndemo.alpha () -> str\n```\n\nTool demo.alpha\nmore');
  });

  // The tooltip is rendered as Markdown: the catalog's description keeps its
  // headings and lists (no literal '##'), only the signature and example are code.
  void test('the tool tooltip is Markdown: signature as code, params as a list, the description as written', () => {
    const t = { ...tool('ops.grep', [param('pattern', { description: 'what to find', example: 'TODO' }), param('key', { hasOverride: true })]), description: '## Usage\nSearches **files**.\n\n- fast\n- safe', example: 'grep(pattern="x")' };
    const md = tooltipLines(toolTooltip(t));
    assert.deepEqual(md.code, ["ops.grep (pattern:str) -> str", 'grep(pattern="x")']);
    assert.deepEqual(md.prose, ["- pattern: what to find (example: 'TODO')", '## Usage', 'Searches **files**.', '- fast', '- safe', 'Example:']);
    assert.ok(!md.code.some((l) => l.startsWith('##')), 'the signature keeps its ## prefix');
    // A fence in the example cannot end the code block early.
    const fenced = toolTooltip({ ...t, example: 'a ``` b' });
    assert.match(fenced, /````text\na ``` b\n````/);
  });

  void test("the tooltip names the sandbox's read folders: the workspace's beside the catalog's", () => {
    const t = { ...tool('ops.grep', []), catalogDir: '/ws/.vscode' };
    assert.match(toolTooltip(t, 'default', ['/ws']), /Runs in a sandbox=default \(read: \/ws, \/ws\/\.vscode; write: nothing; network: off\)/);
    assert.doesNotMatch(toolTooltip(t, 'off', ['/ws']), /sandbox/);
  });

  void test('Run Tool asks only for params without override, typed', () => {
    const t = tool('demo.x', [param('who'), param('key', { hasOverride: true, override: 's3cret' }), param('n', { type: 'int', required: false, hasDefault: true, default: 3 })]);
    assert.deepEqual(callerParams(t).map((p) => p.name), ['who', 'n']);
    assert.deepEqual(parseParamInput(param('who'), 'hello world'), { ok: true, value: 'hello world' });
    assert.deepEqual(parseParamInput(param('n', { type: 'int' }), '42'), { ok: true, value: 42 });
    assert.deepEqual(parseParamInput(param('n', { type: 'int', required: false }), ''), { ok: true, value: undefined, omit: true });
    assert.deepEqual(parseParamInput(param('l', { type: 'list' }), '["a"]'), { ok: true, value: ['a'] });
    assert.equal(parseParamInput(param('l', { type: 'list' }), 'a, b').ok, false);
    assert.equal(paramInitialValue(param('n', { type: 'int', hasDefault: true, default: 3 })), '3');
    assert.equal(paramInitialValue(param('p', { hasDefault: true, default: '.' })), '.');
  });
});

void describe('definition provider data', () => {
  void test('label MCC, the URL, bearer token and session key headers, version as a string', () => {
    const d = definitionData('http://127.0.0.1:5000/mcp', 'tok', 'vscode-abc', 3);
    assert.deepEqual(d, {
      label: 'MCC',
      url: 'http://127.0.0.1:5000/mcp',
      headers: { Authorization: 'Bearer tok', 'X-MCC-Session-Key': 'vscode-abc' },
      version: '3',
    });
    assert.equal(canonicalHeader('x-mcc-session-key'), 'X-MCC-Session-Key');
  });

  void test('the connection config for another client has URL and token but no session key', () => {
    const c = JSON.parse(connectionConfig('http://127.0.0.1:5000/mcp', 'tok')) as { servers: { mcc: { url: string; headers: Record<string, string> } } };
    assert.equal(c.servers.mcc.url, 'http://127.0.0.1:5000/mcp');
    assert.deepEqual(c.servers.mcc.headers, { Authorization: 'Bearer tok' });
  });
});

void describe('settings', () => {
  const config = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

  void test('defaults: OS user, admin group, 24 h, tools.yaml, reveal on error', () => {
    const s = readSettings(config({}), () => 'osuser');
    assert.deepEqual(s.owner, { user: 'osuser', email: '', groups: ['admin'], grants: [] });
    assert.equal(s.ttlSeconds, 86400);
    assert.deepEqual(s.catalogs, ['tools.yaml']);
    assert.equal(s.reveal, 'onError');
    assert.equal(s.perRun, false);
    assert.equal(s.port, 0);
    assert.equal(s.mcpSessionIdleSeconds, 1800);
    assert.equal(s.expose, 'auto');
  });

  void test('the MCP session idle limit: seconds, 0 for never, bad values fall back', () => {
    assert.equal(readSettings(config({ 'server.mcpSessionIdleSeconds': 60 })).mcpSessionIdleSeconds, 60);
    assert.equal(readSettings(config({ 'server.mcpSessionIdleSeconds': 0 })).mcpSessionIdleSeconds, 0);
    assert.equal(readSettings(config({ 'server.mcpSessionIdleSeconds': -5 })).mcpSessionIdleSeconds, 1800);
    assert.equal(readSettings(config({ 'server.mcpSessionIdleSeconds': 'x' })).mcpSessionIdleSeconds, 1800);
  });

  void test('mcc.tools.expose: one of the modes; anything else is the default', () => {
    for (const mode of ['catalog', 'direct', 'both', 'auto']) assert.equal(readSettings(config({ 'tools.expose': mode }), () => 'x').expose, mode);
    assert.equal(readSettings(config({ 'tools.expose': 'everything' }), () => 'x').expose, 'auto');
    // The setting's enum in package.json lists exactly the modes the core knows.
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { enum?: string[]; default?: unknown }> } } };
    const prop = pkg.contributes.configuration.properties['mcc.tools.expose'];
    assert.deepEqual([...(prop.enum ?? [])].sort(), [...EXPOSE_MODES].sort());
    assert.equal(prop.default, 'auto');
  });

  void test('values from settings, with bad ones falling back', () => {
    const s = readSettings(config({ 'identity.user': 'alice', 'identity.groups': ['ops'], 'session.ttlHours': 0.0005, 'server.port': 99999, 'terminal.reveal': 'always', 'session.maxValueBytes': 10 }), () => 'x');
    assert.equal(s.owner.user, 'alice');
    assert.deepEqual(s.owner.groups, ['ops']);
    assert.equal(s.ttlSeconds, 2);
    assert.equal(s.port, 0);
    assert.equal(s.reveal, 'always');
    assert.equal(s.maxValueBytes, 10);
    assert.ok(sweepIntervalMs(2) <= 1000);
    assert.equal(sweepIntervalMs(86400), 60_000);
  });
});

void describe('terminal text', () => {
  void test('header with the masked command, CRLF output, footer with code and duration', () => {
    const started = formatStarted({ type: 'started', runId: 'r', toolKey: 'demo.hello', command: "echo 'x'\necho ***", caller: { user: 'alice', bucketKey: 'vscode-1234567' }, mode: 'pipe', at: 0 });
    assert.match(started, /▶ demo\.hello/);
    assert.match(started, /\$ echo 'x'/);
    assert.match(started, /> echo \*\*\*/);
    assert.ok(!/[^\r]\n/.test(started));
    assert.equal(toCrlf('a\nb\r\nc'), 'a\r\nb\r\nc');
    assert.equal(formatOutput({ type: 'output', runId: 'r', stream: 'stdout', data: '\x1b[31mred\x1b[0m\n' }, 'pty'), '\x1b[31mred\x1b[0m\r\n');
    assert.ok(formatOutput({ type: 'output', runId: 'r', stream: 'stderr', data: 'oops' }, 'pipe').startsWith('\x1b[33moops'));
    const ok = formatExited({ type: 'exited', runId: 'r', code: 0, durationMs: 1234 }, true);
    assert.match(ok, /^\r\n.*✔ exit 0.*1\.23 s/);
    assert.match(formatExited({ type: 'exited', runId: 'r', code: -1, durationMs: 2000, error: 'timeout after 2s' }, false), /✖ timeout.*timeout after 2s/);
    assert.match(started, /alice · 1234567/);
  });

  void test('a stopped run is labelled by why it stopped, not always "timeout"', () => {
    const label = (code: number, error?: string) => exitLabel(error === undefined ? { code } : { code, error });
    assert.equal(label(-1, 'timeout after 5s'), 'timeout');
    assert.equal(label(-1, 'timeout after 5s (in the transform)'), 'timeout');
    assert.equal(label(-1, 'cancelled'), 'cancelled');
    assert.equal(label(-1, 'cancelled (in the transform)'), 'cancelled');
    assert.equal(label(-1, 'cancelled: the server is shutting down'), 'stopped');
    assert.equal(label(-1, 'the run failed inside the runtime'), 'failed');
    assert.equal(label(-1, 'the exec runtime is shutting down'), 'failed to start');
    assert.equal(label(-1, "Missing required parameter 'host'"), 'failed to start');
    assert.equal(label(-1), 'exit -1');
    assert.equal(label(2, 'No such file'), 'exit 2');
    assert.equal(label(0), 'exit 0');
    const cancelled = formatExited({ type: 'exited', runId: 'r', code: -1, durationMs: 300, error: 'cancelled' }, false);
    assert.match(cancelled, /✖ cancelled/);
    assert.doesNotMatch(cancelled, /timeout/);
    assert.match(formatExited({ type: 'exited', runId: 'r', code: -1, durationMs: 1, error: 'spawn sh ENOENT' }, false), /✖ failed to start.*spawn sh ENOENT/);
  });
});

void describe('status, catalog paths, diagnostics, audit', () => {
  void test('the status menu preselects a harmless action; Restart Server comes last', () => {
    assert.equal(STATUS_MENU[0].command, 'mcc.showLogs');
    assert.equal(STATUS_MENU[STATUS_MENU.length - 1].command, 'mcc.restartServer');
    assert.deepEqual([...new Set(STATUS_MENU.map((i) => i.command))].length, STATUS_MENU.length);
  });

  void test('status text per state', () => {
    assert.equal(statusText({ state: 'running', port: 4000, tools: 7, sessions: 1, trusted: true }).text, '$(server) MCC :4000 · 7 tools · 1 session');
    assert.match(statusText({ state: 'running', port: 4000, tools: 0, sessions: 0, trusted: false }).text, /shield.*restricted/);
    assert.match(statusText({ state: 'error', tools: 0, sessions: 0, trusted: true, error: 'boom' }).tooltip, /boom/);
  });

  void test('catalog entries resolve against every folder; absolute ones as written', () => {
    const exists = (p: string) => ['/a/tools.yaml', '/b/more'].includes(p);
    const r = resolveCatalogPaths(['tools.yaml', 'more', '/abs/x.yaml'], ['/a', '/b'], exists);
    assert.deepEqual(r.candidates, ['/a/tools.yaml', '/b/tools.yaml', '/a/more', '/b/more', '/abs/x.yaml']);
    assert.deepEqual(r.existing, ['/a/tools.yaml', '/b/more']);
    assert.deepEqual(r.missing, ['/abs/x.yaml']);
  });

  void test('a glob pattern among the catalog entries counts when it matches files (real files)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcc-globs-'));
    mkdirSync(join(dir, 'cat', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'cat', 'deep', 'a.yaml'), 'tools: []\n');
    const r = resolveCatalogPaths(['cat/**/*.yaml', 'none/*.yaml'], [dir]);
    assert.deepEqual(r.existing, [join(dir, 'cat/**/*.yaml')]);
    assert.deepEqual(r.missing, ['none/*.yaml']);
  });

  void test('diagnostics group by file with 0-based lines', () => {
    const m = problemsByFile([
      { severity: 'warning', message: 'unquoted', file: '/a/t.yaml', line: 12 },
      { severity: 'error', message: 'dup', file: '/a/t.yaml', line: 1, column: 5 },
      { severity: 'error', message: 'bad', file: '/b/u.yaml', line: 0 },
    ]);
    assert.deepEqual(m.get('/a/t.yaml'), [
      { severity: 'warning', message: 'unquoted', line: 11 },
      { severity: 'error', message: 'dup', line: 0, column: 4 },
    ]);
    assert.equal(m.get('/b/u.yaml')![0].line, 0);
  });

  void test('an audit line names user, session, tool, masked params, code and duration', () => {
    const line = formatAudit({ at: 0, user: 'alice', bucketKey: 'vscode-0123456789abcdef01234567', toolKey: 'ops.api_ping', params: { endpoint: 'status', api_key: '***' }, durationMs: 12, code: 0 });
    assert.equal(line, 'call alice bucket=01234567… ops.api_ping {"endpoint":"status","api_key":"***"} -> 0 in 12 ms');
  });
});
