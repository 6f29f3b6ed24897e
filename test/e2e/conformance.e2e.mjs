// The official MCP conformance suite (@modelcontextprotocol/conformance, run
// on Node 24 from the e2e cache; scripts/e2e-setup.mjs installs it) against
// the real `mcc serve`, for the server scenarios that apply to MCC. Every
// check of those must succeed: a warning fails too.
//
// Not applicable (each calls tools, prompts or resources of the suite's own
// reference server, which MCC's catalog does not define): tools-call-* (but
// simple-text and error, which pass without the tool), completion-complete,
// resources-*, prompts-*, elicitation-*, json-schema-2020-12, and
// server-sse-polling (needs its `test_reconnection` tool; its priming check
// also sends protocol version 2025-03-26, for which the SDK rightly sends no
// priming event; test/integration/http-protocol.test.ts checks priming and
// resumption with 2025-11-25).
//
//   node scripts/e2e-test.mjs test/e2e/conformance.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { paths, isInstalled } from '../../scripts/e2e-paths.mjs';
import { startServe } from './conformance-serve.mjs';

const APPLICABLE = ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

describe('MCP conformance suite (server scenarios that apply)', () => {
  let server;
  let dir;
  before(async () => {
    assert.ok(isInstalled(paths.conformanceDir) && isInstalled(paths.nodeDir), 'run node scripts/e2e-setup.mjs first');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-conformance-'));
    server = await startServe(dir);
  });
  after(() => {
    server?.proc.kill('SIGTERM');
  });

  for (const scenario of APPLICABLE) {
    test(scenario, () => {
      const out = path.join(dir, scenario);
      const r = spawnSync(paths.node, [paths.conformance, 'server', '--url', server.url, '--scenario', scenario, '-o', out], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const [result] = fs.readdirSync(out);
      assert.ok(result, `no results written (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
      const checks = JSON.parse(fs.readFileSync(path.join(out, result, 'checks.json'), 'utf8'));
      const judged = checks.filter((c) => c.status !== 'INFO');
      assert.ok(judged.length > 0, 'the scenario judged nothing');
      const bad = judged.filter((c) => c.status !== 'SUCCESS').map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''}`);
      assert.deepEqual(bad, [], `server log:\n${server.stderr().slice(-2000)}`);
      assert.equal(r.status, 0, r.stdout);
    });
  }
});
