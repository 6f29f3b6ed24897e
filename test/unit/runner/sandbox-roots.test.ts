// The default sandbox profile in the editor: the workspace's folders are
// shown read-only besides the catalog file's folder, so a catalog kept
// elsewhere (.vscode/, a shared folder) still runs tools over the workspace;
// headless (no roots) the catalog folder alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecExecutor } from '../../../src/core/runner/exec-executor';
import { ToolRunner } from '../../../src/core/runner/tool-runner';
import { Sandbox } from '../../../src/core/sandbox/sandbox';
import { profileOf } from '../../../src/core/sandbox/profile';
import { call, execTool, tempFolders } from './helpers';

const folder = tempFolders();

test('the default profile reads the roots and the catalog folder; a profile of its own that names no read list too', () => {
  const t = execTool({ command: 'true' });
  assert.deepEqual(profileOf(t, 'default', ['/ws/a', '/ws/b']), { kind: 'default', read: ['/ws/a', '/ws/b', t.catalogDir], write: [], network: false });
  assert.deepEqual(profileOf(t, 'default', [t.catalogDir]), { kind: 'default', read: [t.catalogDir], write: [], network: false }, 'named once');
  assert.deepEqual(profileOf({ ...t, sandbox: { network: true } }, 'off', ['/ws'])?.read, ['/ws', t.catalogDir]);
  assert.deepEqual(profileOf({ ...t, sandbox: { read: ['/only'] } }, 'off', ['/ws'])?.read, ['/only'], "a tool's own read list is the whole list");
});

test('a sandboxed run sees a workspace folder that is not its catalog folder, read-only, only when it is a root', async () => {
  const workspace = folder();
  const catalogDir = folder();
  writeFileSync(join(workspace, 'notes.txt'), 'from the workspace\n');
  const tool = execTool({ command: `cat ${join(workspace, 'notes.txt')}; touch ${join(workspace, 'new')} 2>/dev/null || echo read-only`, catalogDir });
  const run = async (roots: string[]): Promise<string> => {
    const sandbox = new Sandbox({ server: 'default', roots });
    const exec = new ToolRunner({ sandbox }).wrap(new ExecExecutor({ defaultMode: 'pipe', sandbox }));
    const r = await exec.run(tool, {}, call().ctx);
    return r.stdout;
  };
  assert.equal(await run([workspace]), 'from the workspace\nread-only\n');
  assert.equal(await run([]), 'read-only\n', 'headless: the workspace is not there (cat finds nothing)');
});
