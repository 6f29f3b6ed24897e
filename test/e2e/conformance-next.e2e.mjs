// The MCP conformance suite's 0.2 line (@modelcontextprotocol/conformance
// 0.2.0-alpha.12, on Node 24 from the e2e cache) against the real `mcc
// serve`, once per protocol revision with `--requirements`: every scenario
// the revision requires is listed here, either applicable (then every check
// must succeed, except the named checks that need one of the suite's own
// fixture tools, each with its reason) or not applicable with its reason. A
// scenario the suite adds later fails the run until it is sorted here.
//
//   node scripts/e2e-test.mjs test/e2e/conformance-next.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { paths, isInstalled } from '../../scripts/e2e-paths.mjs';
import { startServe } from './conformance-serve.mjs';

// Scenarios that call a tool, prompt or resource of the suite's reference
// server (test_simple_text, test_prompt_with_arguments, test://static-text,
// ...): MCC serves its own catalog, so there is nothing of theirs to call.
const FIXTURES = 'calls a tool, prompt or resource of the suite\'s reference server, which MCC does not define';
const TASKS = 'its checks call the suite\'s fixture tools (greet, slow_compute, failing_job, ...); the checks that need none pass, and MCC\'s own tasks are tested in test/integration/tasks.test.ts';

const NOT_APPLICABLE = {
  ...Object.fromEntries(
    [
      'completion-complete', 'tools-call-simple-text', 'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource',
      'tools-call-mixed-content', 'tools-call-with-logging', 'tools-call-error', 'tools-call-with-progress', 'tools-call-sampling',
      'tools-call-elicitation', 'elicitation-sep1034-defaults', 'elicitation-sep1330-enums', 'resources-read-text',
      'resources-read-binary', 'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe', 'prompts-get-simple',
      'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image', 'json-schema-2020-12',
      'input-required-result-basic-elicitation', 'input-required-result-basic-sampling', 'input-required-result-basic-list-roots',
      'input-required-result-request-state', 'input-required-result-multiple-input-requests', 'input-required-result-multi-round',
      'input-required-result-non-tool-request', 'input-required-result-result-type', 'input-required-result-tampered-state',
      'input-required-result-capability-check', 'input-required-result-ignore-extra-params', 'input-required-result-missing-input-response',
      'http-custom-header-server-validation',
    ].map((s) => [s, FIXTURES]),
  ),
  ...Object.fromEntries(
    [
      'tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields', 'tasks-request-state-removal', 'tasks-mrtr-input',
      'tasks-request-headers', 'tasks-dispatch-and-envelope', 'tasks-status-notifications', 'tasks-required-task-error', 'tasks-mrtr-composition',
    ].map((s) => [s, TASKS]),
  ),
  // Its resumption check needs the suite's `test_reconnection` tool; test/integration/http-protocol.test.ts covers resumption.
  'server-sse-polling': FIXTURES,
};

// Checks of applicable scenarios that need one of the suite's diagnostic tools.
const UNTESTABLE_CHECKS = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': 'needs the test_missing_capability tool',
    'sep-2575-missing-capability-http-400': 'needs the test_missing_capability tool',
    'sep-2575-http-server-no-independent-requests-on-stream': 'needs the test_streaming_elicitation tool',
    'sep-2575-server-no-log-without-loglevel': 'needs the test_logging_tool tool',
    'sep-2575-server-sends-prompts-list-changed-on-subscription': 'mutates the prompt list through the test_trigger_prompt_change tool',
    'sep-2575-server-sends-tools-list-changed-on-subscription': 'mutates the tool list through the test_trigger_tool_change tool (tests/integration/protocol-2026.test.ts edits a catalog instead)',
  },
};

/** The checks of every scenario one `--requirements` run wrote. */
function runRequirements(url, revision, dir) {
  const out = path.join(dir, revision);
  const r = spawnSync(paths.node, [paths.conformanceNext, 'server', '--url', url, '--requirements', revision, '-o', out], { encoding: 'utf8', timeout: 600_000 });
  assert.ok(fs.existsSync(out), `no results written (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  const scenarios = new Map();
  for (const entry of fs.readdirSync(out)) {
    const name = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    scenarios.set(name, JSON.parse(fs.readFileSync(path.join(out, entry, 'checks.json'), 'utf8')));
  }
  return { scenarios, output: r.stdout };
}

for (const revision of ['2025-11-25', '2026-07-28']) {
  describe(`MCP conformance 0.2 (--requirements ${revision})`, () => {
    let server;
    let dir;
    let run;
    before(async () => {
      assert.ok(isInstalled(paths.conformanceNextDir) && isInstalled(paths.nodeDir), 'run node scripts/e2e-setup.mjs first');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcc-conformance-${revision}-`));
      server = await startServe(dir);
      run = runRequirements(server.url, revision, dir);
    });
    after(() => {
      server?.proc.kill('SIGTERM');
    });

    test('a scenario called not applicable fails only for want of the suite\'s fixtures or the tasks extension', () => {
      assert.ok(run.scenarios.size > 10, `the suite ran ${run.scenarios.size} scenarios:\n${run.output.slice(-2000)}`);
      const unexplained = [];
      for (const [scenario, checks] of run.scenarios) {
        if (!(scenario in NOT_APPLICABLE)) continue;
        for (const c of checks) {
          if (c.status === 'SUCCESS' || c.status === 'INFO' || c.status === 'SKIPPED') continue;
          if (`${scenario}/${c.id}` in SILENT_FIXTURE_CHECKS) continue;
          if (!WANT_OF_FIXTURES.test(c.errorMessage ?? '')) unexplained.push(`${scenario}: ${c.status} ${c.id}: ${c.errorMessage ?? ''}`);
        }
      }
      assert.deepEqual(unexplained, []);
    });

    test('no applicable check fails', () => {
      const failures = [];
      let judged = 0;
      for (const [scenario, checks] of run.scenarios) {
        if (scenario in NOT_APPLICABLE) continue;
        const allowed = UNTESTABLE_CHECKS[scenario] ?? {};
        for (const c of checks) {
          if (c.status === 'INFO' || c.status === 'SKIPPED') continue;
          judged++;
          if (c.status !== 'SUCCESS' && !(c.id in allowed)) failures.push(`${scenario}: ${c.status} ${c.id}: ${c.errorMessage ?? ''}`);
        }
      }
      assert.ok(judged > 20, `only ${judged} checks judged`);
      assert.deepEqual(failures, [], `server log:\n${server.stderr().slice(-2000)}`);
    });
  });
}

// Checks of not-applicable scenarios whose message does not name what they
// lack; read in the suite's source (dist/index.js), each calls a fixture tool.
const SILENT_FIXTURE_CHECKS = {
  'server-sse-polling/server-sse-disconnect-resume': 'calls test_reconnection',
  'input-required-result-multi-round/sep-2322-multi-round-r1': 'calls test_input_required_result_multi_round',
  'input-required-result-missing-input-response/sep-2322-missing-response-rerequests': 'calls test_input_required_result_elicitation',
};

// What the suite says when a scenario needs something of its own that MCC
// lacks: a fixture tool, prompt or resource, or the tasks extension.
const WANT_OF_FIXTURES = /not found|not testable|prerequisite|no task was created|-32601|capabilities\.extensions|diagnostic hook|-32021|fixture/i;
