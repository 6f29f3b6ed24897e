// Bridge into the extension host: the loopback server the helper extension
// announces itself to, and the client for its ops.
import http from 'node:http';

/**
 * The test side of the bridge: a loopback HTTP server the helper extension
 * announces itself to (POST /hello). Requests then go straight to the helper.
 */
export async function startBridge(token) {
  let current; // { port, pid, sessionId }
  let waiters = [];
  const hellos = [];
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/hello' || req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        current = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        hellos.push({ ...current, at: Date.now() });
        res.writeHead(204).end();
        const w = waiters;
        waiters = [];
        for (const fn of w) fn();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hellos,
    get current() { return current; },
    /** Resolves when a helper newer than `after` (a hello count) has announced itself. */
    waitForHello(after, timeoutMs) {
      if (hellos.length > after) return Promise.resolve(current);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the helper extension did not connect within ${timeoutMs}ms`)), timeoutMs);
        waiters.push(() => { clearTimeout(timer); resolve(current); });
      });
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Client for the helper extension's ops (see helper-extension/extension.js). */
export function hostClient(bridge, token) {
  const call = async (op, args = {}, { timeoutMs = 120_000 } = {}) => {
    if (!bridge.current) throw new Error('helper extension not connected');
    const body = JSON.stringify({ op, ...args });
    const res = await fetch(`http://127.0.0.1:${bridge.current.port}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const reply = await res.json();
    if (!reply.ok) {
      const err = new Error(`in-host ${op} failed: ${reply.error?.message}`);
      err.hostStack = reply.error?.stack;
      throw err;
    }
    return reply.value;
  };
  return {
    call,
    ping: () => call('ping'),
    executeCommand: (command, ...args) => call('executeCommand', { command, args }),
    tools: (prefix) => call('tools', { prefix }),
    waitForTool: (name, timeoutMs = 30_000) => call('waitForTool', { name, timeoutMs }, { timeoutMs: timeoutMs + 5000 }),
    /** Resolves when VS Code lets the call through; a confirmation dialog may block it (see editor.invokeTool). */
    invokeTool: (name, input, opts = {}) => call('invokeTool', { name, input, timeoutMs: opts.timeoutMs }, opts),
    extension: (id, activate = true) => call('extension', { id, activate }),
    workspace: () => call('workspace'),
    configuration: (section, key) => call('configuration', { section, key }),
    updateConfiguration: (section, key, value, target) => call('updateConfiguration', { section, key, value, target }),
    /** A named check from a module listed in launchEditor({ checks }). */
    check: (name, args) => call('check', { name, args }),
    /** Runs fn(vscode, args, ctx, require) in the extension host; fn must be self-contained. */
    evaluate: (fn, args) => call('evaluate', { source: fn.toString(), args }),
  };
}
