// Named in-host checks for probe.e2e.mjs: each runs inside the extension host
// as (vscode, args, ctx) and returns JSON-able data; the test asserts on it.
// Add one by exporting another async function; no helper change needed.
'use strict';

const PROBE_ID = 'mcc-test.mcc-e2e-probe';

module.exports = {
  /** The probe's exported API, as the real extension's tests will read theirs. */
  async probeApi(vscode) {
    const ext = vscode.extensions.getExtension(PROBE_ID);
    const api = ext.isActive ? ext.exports : await ext.activate();
    return { mcpUrlSet: Boolean(api.mcpUrl), provideCalls: api.provideCalls, helloCount: api.helloCount, workspaceState: api.workspaceState() };
  },

  /** A tool as an agent sees it in vscode.lm.tools. */
  async toolInfo(vscode, { name }) {
    const t = vscode.lm.tools.find((x) => x.name === name);
    return t ? { name: t.name, description: t.description, inputSchema: t.inputSchema } : null;
  },
};
