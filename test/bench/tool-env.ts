// The environment of a tool's subprocess (runner/env.ts): built for a usual
// store, a bucket at the 1 MiB limit (its JSON goes to MCC_CTX_FILE) and a
// caller of 5,000 tools (as a plain list, and frozen as the server keeps
// it); and `exec true` on pipes with a usual and a full store.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { execTool } from '../unit/catalog/tooldef';
import { buildToolEnv, serverEnv } from '../../src/core/runner/env';
import { ExecExecutor } from '../../src/core/runner/exec-executor';
import { nullEventSink } from '../../src/core/tool-run/contract';
import type { BenchGroup } from './harness';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fn');
const STORE = { user: 'bench', email: '', groups: ['admin'], tools: [] as string[] };
const FULL_STORE: Record<string, unknown> = { ...STORE };
for (let i = 0; i < 16; i++) FULL_STORE[`v${i}`] = 'x'.repeat(65000);
const MANY_TOOLS_STORE = { ...STORE, tools: Array.from({ length: 5000 }, (_, i) => `group_${i % 50}.tool_${i}`) };
// As the server keeps a caller's identity (access-cache.ts): frozen, the same object each call.
const FROZEN_TOOLS_STORE = { ...STORE, tools: Object.freeze([...MANY_TOOLS_STORE.tools]) };
const SERVER = serverEnv();

const trueTool = execTool('true', [], { groups: ['bench'], source: { file: join(FIXTURES, 'bench.yaml'), line: 1 }, catalogDir: FIXTURES });

let exec: ExecExecutor | undefined;

function envOnce(store: Record<string, unknown>): Promise<void> {
  buildToolEnv(trueTool, store, SERVER).dispose();
  return Promise.resolve();
}

async function runExec(store: Record<string, unknown>): Promise<void> {
  exec ??= new ExecExecutor({ defaultMode: 'pipe' });
  const r = await exec.prepare(trueTool, {}, { runId: randomUUID(), caller: { user: 'bench', bucketKey: 'bench' }, store, events: nullEventSink }).start();
  if (r.code !== 0) throw new Error(`exec failed (code ${r.code}): ${r.stderr}`);
}

export const toolEnv: BenchGroup = {
  name: 'tool environment',
  cases: [
    { name: 'tool env, usual store', calls: 5000, warmup: 200, once: () => envOnce(STORE) },
    { name: 'tool env, 1 MiB store (file)', calls: 500, warmup: 20, once: () => envOnce(FULL_STORE) },
    { name: 'tool env, 5,000 tool keys', calls: 1000, warmup: 50, once: () => envOnce(MANY_TOOLS_STORE) },
    { name: 'tool env, 5,000 tool keys (frozen, as served)', calls: 1000, warmup: 50, once: () => envOnce(FROZEN_TOOLS_STORE) },
    { name: 'exec true (pipe), usual store', calls: 200, warmup: 10, once: () => runExec(STORE) },
    { name: 'exec true (pipe), 1 MiB store', calls: 200, warmup: 10, once: () => runExec(FULL_STORE) },
  ],
  ratios: [
    { a: 'tool env, usual store', b: 'tool env, 1 MiB store (file)', as: 'faster' },
    { a: 'exec true (pipe), usual store', b: 'exec true (pipe), 1 MiB store', as: 'faster' },
  ],
  teardown: async () => {
    await exec?.dispose();
    exec = undefined;
  },
};
