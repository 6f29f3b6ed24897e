// Helpers shared by the suites that test the real extension (mcc.e2e.mjs,
// agent-features.e2e.mjs): the VSIX under test, a workspace copy, polling.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './harness.mjs';
import { packageVsix } from '../../scripts/package.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The freshly built VSIX: MCC_E2E_VSIX, or one packaged now unless a fresh one exists. */
export async function freshVsix() {
  if (process.env.MCC_E2E_VSIX) return path.resolve(process.env.MCC_E2E_VSIX);
  const target = `${process.platform}-${process.arch}`;
  const vsix = path.join(repoRoot, 'dist-vsix', `mcc-vscode-${target}.vsix`);
  const inputs = ['dist/extension.js', 'package.json', '.vscodeignore'].map((f) => path.join(repoRoot, f));
  const fresh = fs.existsSync(vsix) && inputs.every((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs <= fs.statSync(vsix).mtimeMs);
  // scripts/e2e-test.mjs has just built and packaged; run alone, build here.
  if (!fresh || process.env.MCC_E2E_REPACKAGE) await packageVsix({ target, json: true });
  return vsix;
}

/** A copy of the fixture workspace, so nothing the editor does lands in the repo. */
export function workspaceCopy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-e2e-ws-'));
  fs.cpSync(path.join(here, 'fixtures', 'mcc-workspace'), dir, { recursive: true });
  return dir;
}

/** Polls fn until it returns truthy (or throws the last assertion). */
export async function eventually(fn, { timeoutMs = 15_000, everyMs = 300 } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== false && v !== undefined) return v;
      if (Date.now() > end) throw new Error('condition not met in time');
    } catch (err) {
      if (Date.now() > end) throw err;
    }
    await sleep(everyMs);
  }
}
