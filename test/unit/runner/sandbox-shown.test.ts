// Where a tool's sandbox shows: the audit line, describe_tools, the Tools
// view, and how the hosts ask for one (mcc serve --sandbox, mcc.sandbox).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAuditLine } from '../../../src/core/call/audit-entry';
import { describeAnswer } from '../../../src/core/search/tool-listing';
import { toolNodes, toolGroups, toolTooltip } from '../../../src/extension/tools-model';
import { readSettings, SERVER_SETTINGS } from '../../../src/extension/settings';
import { parseServeArgs, UsageError } from '../../../src/cli/args';
import { Sandbox } from '../../../src/core/sandbox/sandbox';
import { serverSecrets } from '../../../src/core/secrets';
import { execTool } from './helpers';
import type { ToolDef } from '../../../src/core/catalog/types';

const entry = { at: 0, user: 'sam', bucketKey: 'b', toolKey: 'demo.x', params: {}, durationMs: 4, code: 0 as const };

void describe('the sandbox, as shown', () => {
  void test('the audit line says sandbox=default or sandbox=tool, and nothing for an unsandboxed run', () => {
    assert.match(formatAuditLine({ ...entry, sandbox: 'default' }), / -> 0 in 4 ms sandbox=default$/);
    assert.match(formatAuditLine({ ...entry, sandbox: 'tool', client: 'c' }), / in 4 ms sandbox=tool client="c"$/);
    assert.doesNotMatch(formatAuditLine(entry), /sandbox/);
  });

  void test("describe_tools names each tool's sandbox under its key", () => {
    const boxed = execTool({ command: 'true', key: 'demo.boxed', sandbox: 'default', description: 'Boxed.' });
    const free = execTool({ command: 'true', key: 'demo.free', description: 'Free.' });
    const sandbox = new Sandbox();
    const label = (t: ToolDef): string | undefined => (sandbox.label(t) === 'off' ? undefined : sandbox.label(t));
    assert.equal(describeAnswer([boxed, free], [], label).text, '## demo.boxed\nSandbox: default\nBoxed.\n\n## demo.free\nFree.');
  });

  void test('the Tools view marks sandboxed tools and gives the profile in the hover', () => {
    const own = execTool({ command: 'true', key: 'demo.own', name: 'own', sandbox: { write: ['/w/out'], network: true } });
    const plain = execTool({ command: 'true', key: 'demo.plain', name: 'plain' });
    const [group] = toolGroups([own, plain]);
    const off = toolNodes(group, 'off');
    assert.deepEqual(off.map((n) => n.description.startsWith('[sandbox] ')), [true, false]);
    assert.match(off[0].tooltip, new RegExp(`Runs in a sandbox=tool \\(read: ${own.catalogDir}; write: /w/out; network: on\\)`));
    assert.doesNotMatch(toolTooltip(plain, 'off'), /sandbox/);
    assert.match(toolTooltip(plain, 'default'), /Runs in a sandbox=default \(read: .*; write: nothing; network: off\)/);
  });

  void test('mcc serve --sandbox default|off, mcc.sandbox (a server setting: it restarts the server)', () => {
    assert.equal(parseServeArgs([]).sandbox, 'off');
    assert.equal(parseServeArgs(['--sandbox', 'default']).sandbox, 'default');
    assert.equal(parseServeArgs(['--sandbox', 'off']).sandbox, 'off');
    assert.throws(() => parseServeArgs(['--sandbox', 'strict']), (e: unknown) => e instanceof UsageError && /--sandbox takes default or off/.test(e.message));
    const config = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });
    assert.equal(readSettings(config({}), () => 'u').sandbox, 'off');
    assert.equal(readSettings(config({ sandbox: 'default' }), () => 'u').sandbox, 'default');
    assert.equal(readSettings(config({ sandbox: 'bogus' }), () => 'u').sandbox, 'off');
    assert.ok((SERVER_SETTINGS as readonly string[]).includes('mcc.sandbox'));
  });

  void test('secret files travel with the secrets', () => {
    assert.deepEqual(serverSecrets({ ownerToken: 'x'.repeat(20), files: ['/srv/users.yaml'] }).files, ['/srv/users.yaml']);
    assert.equal(serverSecrets({ ownerToken: 'x'.repeat(20) }).files, undefined);
  });
});
