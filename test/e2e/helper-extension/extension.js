// Test-only bridge between the e2e test process and this extension host.
// code-server cannot run --extensionTestsPath, so instead: on activation we
// start a loopback HTTP server and announce its port to the test's bridge
// (URL + token from env). The test then POSTs { op, ...args } and gets
// { ok, value } or { ok: false, error }. Every request must carry the token.
'use strict';
const http = require('node:http');
const vscode = require('vscode');

const BRIDGE = process.env.MCC_E2E_BRIDGE; // e.g. http://127.0.0.1:PORT
const TOKEN = process.env.MCC_E2E_TOKEN;
// Extra check modules (CommonJS, absolute paths, ';'-separated) so a test can
// keep its checks next to it without editing this file.
const CHECK_MODULES = (process.env.MCC_E2E_CHECKS || '').split(';').filter(Boolean);

/** Built-in ops. Each gets (args) and returns something JSON-able (see toJson). */
const ops = {
  ping: async () => ({ pid: process.pid, version: vscode.version, appName: vscode.env.appName }),
  executeCommand: async ({ command, args = [] }) => vscode.commands.executeCommand(command, ...args),
  getCommands: async ({ filterInternal = true } = {}) => vscode.commands.getCommands(filterInternal),
  tools: async ({ prefix } = {}) =>
    vscode.lm.tools.filter((t) => !prefix || t.name.startsWith(prefix))
      .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, tags: t.tags })),
  // Waits because MCP tools show up a little after startServer resolves.
  waitForTool: async ({ name, timeoutMs = 30000 }) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const t = vscode.lm.tools.find((x) => x.name === name);
      if (t) return { name: t.name, description: t.description, inputSchema: t.inputSchema };
      if (Date.now() > end) throw new Error(`tool ${name} not in vscode.lm.tools after ${timeoutMs}ms; have: ${vscode.lm.tools.map((x) => x.name).join(', ')}`);
      await sleep(200);
    }
  },
  invokeTool: async ({ name, input = {}, timeoutMs }) => {
    const cts = new vscode.CancellationTokenSource();
    const timer = timeoutMs ? setTimeout(() => cts.cancel(), timeoutMs) : undefined;
    try {
      const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cts.token);
      return { content: result.content.map(partToJson), text: result.content.filter((p) => typeof p.value === 'string').map((p) => p.value).join('') };
    } finally {
      clearTimeout(timer);
      cts.dispose();
    }
  },
  extension: async ({ id, activate = true }) => {
    const ext = vscode.extensions.getExtension(id);
    if (!ext) return null;
    if (activate && !ext.isActive) await ext.activate();
    return { id: ext.id, isActive: ext.isActive, version: ext.packageJSON.version, extensionPath: ext.extensionPath };
  },
  extensions: async () => vscode.extensions.all.filter((e) => !e.id.startsWith('vscode.')).map((e) => ({ id: e.id, isActive: e.isActive })),
  configuration: async ({ section, key }) => vscode.workspace.getConfiguration(section).get(key),
  updateConfiguration: async ({ section, key, value, target = 'global' }) => {
    const t = { global: vscode.ConfigurationTarget.Global, workspace: vscode.ConfigurationTarget.Workspace }[target];
    await vscode.workspace.getConfiguration(section).update(key, value, t);
    return true;
  },
  workspace: async () => ({
    isTrusted: vscode.workspace.isTrusted,
    folders: (vscode.workspace.workspaceFolders || []).map((f) => f.uri.fsPath),
    name: vscode.workspace.name,
  }),
  // A named check from a check module: module.exports = { name: async (vscode, args, ctx) => value }.
  check: async ({ name, args = {} }) => {
    for (const file of CHECK_MODULES) {
      delete require.cache[require.resolve(file)]; // re-read so edits apply without a reload
      const mod = require(file);
      if (typeof mod[name] === 'function') return mod[name](vscode, args, ctx);
    }
    throw new Error(`no check named ${name} in ${CHECK_MODULES.join(', ') || '(no MCC_E2E_CHECKS modules)'}`);
  },
  // Like Playwright's page.evaluate: the test sends a function's source.
  // Fine for a test-only extension reachable only on loopback with a token.
  evaluate: async ({ source, args }) => {
    const fn = new Function('vscode', 'args', 'ctx', 'require', `return (${source})(vscode, args, ctx, require);`);
    return fn(vscode, args, ctx, require);
  },
};

// State a check may keep between calls (e.g. event recorders).
const ctx = { state: {}, sleep };

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

function partToJson(p) {
  // Class names are minified in the host, so name the part kinds ourselves.
  if (p instanceof vscode.LanguageModelTextPart) return { type: 'text', value: p.value };
  if (vscode.LanguageModelDataPart && p instanceof vscode.LanguageModelDataPart) {
    return { type: 'data', mimeType: p.mimeType, value: Buffer.from(p.data).toString(p.mimeType.startsWith('text/') || p.mimeType.includes('json') ? 'utf8' : 'base64') };
  }
  return toJson(p);
}

/** Makes VS Code values JSON-able: Uris as strings, Errors as objects, Maps/Sets as arrays, cycles cut. */
function toJson(value) {
  const seen = new WeakSet();
  const walk = (v, depth) => {
    if (v === undefined) return null;
    if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? String(v) : typeof v === 'function' ? `[function ${v.name}]` : v;
    if (v instanceof vscode.Uri) return v.toString();
    if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack };
    if (seen.has(v) || depth > 12) return '[circular or deep]';
    seen.add(v);
    if (v instanceof Map) return [...v.entries()].map(([k, x]) => [walk(k, depth + 1), walk(x, depth + 1)]);
    if (v instanceof Set) return [...v].map((x) => walk(x, depth + 1));
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out = {};
    for (const k of Object.keys(v)) out[k] = walk(v[k], depth + 1);
    return out;
  };
  return walk(value, 0);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req, res) {
  const reply = (status, obj) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  };
  if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${TOKEN}`) return reply(401, { ok: false, error: { message: 'unauthorized' } });
  let msg;
  try { msg = JSON.parse(await readBody(req)); } catch { return reply(400, { ok: false, error: { message: 'bad json' } }); }
  const op = ops[msg.op];
  if (!op) return reply(404, { ok: false, error: { message: `unknown op ${msg.op}; have ${Object.keys(ops).join(', ')}` } });
  try {
    reply(200, { ok: true, value: toJson(await op(msg)) });
  } catch (err) {
    reply(200, { ok: false, error: { name: err?.name, message: err?.message ?? String(err), stack: err?.stack } });
  }
}

let server;

async function activate(context) {
  if (!BRIDGE || !TOKEN) {
    console.log('[mcc-e2e-helper] no MCC_E2E_BRIDGE/MCC_E2E_TOKEN in env; idle');
    return;
  }
  server = http.createServer((req, res) => { handle(req, res).catch(() => res.destroy()); });
  // Calls such as invokeTool wait for a person's click; never time them out here.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  context.subscriptions.push({ dispose: () => server.close() });
  const { port } = server.address();
  // Announce ourselves; a reload starts a new extension host that announces again.
  const hello = JSON.stringify({ port, pid: process.pid, vscodeVersion: vscode.version, sessionId: vscode.env.sessionId });
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const r = await fetch(`${BRIDGE}/hello`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: hello });
      if (r.ok) return;
    } catch { /* test process not listening yet; retry */ }
    await sleep(250);
  }
  console.error('[mcc-e2e-helper] could not reach the test bridge at', BRIDGE);
}

function deactivate() {
  server?.close();
}

module.exports = { activate, deactivate };
