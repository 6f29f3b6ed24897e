// The build itself refuses a core or CLI that imports `vscode`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BUILD = join(__dirname, '..', '..', '..', '..', 'scripts', 'build.mjs');

function buildTree(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-build-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const r = spawnSync(process.execPath, [BUILD], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

test('a core module importing vscode fails the build, naming the file', () => {
  const r = buildTree({
    'src/cli/main.ts': "import { x } from '../core/leak';\nconsole.log(x);\n",
    'src/core/leak.ts': "import * as vscode from 'vscode';\nexport const x = vscode.version;\n",
  });
  assert.notEqual(r.status, 0);
  assert.match(r.output, /src\/core\/leak\.ts imports 'vscode'/);
});

test('the extension may import vscode, and a pure core builds', () => {
  const r = buildTree({
    'src/cli/main.ts': "import { x } from '../core/pure';\nconsole.log(x);\n",
    'src/core/pure.ts': 'export const x = 1;\n',
    'src/extension/extension.ts': "import * as vscode from 'vscode';\nexport function activate() { return vscode.version; }\n",
  });
  assert.equal(r.status, 0, r.output);
});
