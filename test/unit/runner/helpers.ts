// Hand-built exec tools and call contexts for the runner tests.
import { randomUUID } from 'node:crypto';
import { after } from 'node:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecTool, ParamSpec } from '../../../src/core/catalog/types';
import type { RunContext, RunEvent } from '../../../src/core/tool-run/contract';
import { isAlive } from '../../../src/core/runner/process-tree';
import { ExecExecutor, type ExecExecutorOptions } from '../../../src/core/runner/exec-executor';
import { ToolRunner } from '../../../src/core/runner/tool-runner';

/** An exec executor inside the tool runner (events, time limit, transform, cache_ttl), as the runtime uses it. */
export function keptExec(opts: ExecExecutorOptions): ReturnType<ToolRunner['wrap']> {
  const kit = new ToolRunner({
    ...(opts.baseEnv ? { baseEnv: opts.baseEnv } : {}),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    ...(opts.killGraceMs !== undefined ? { killGraceMs: opts.killGraceMs } : {}),
    ...(opts.maxOutputBytes !== undefined ? { maxOutputBytes: opts.maxOutputBytes } : {}),
  });
  return kit.wrap(new ExecExecutor(opts));
}

export const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runner');
export const HOST_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

export function execTool(over: Partial<ExecTool> & { command: string }): ExecTool {
  return {
    kind: 'exec',
    key: 'test.tool',
    name: 'tool',
    description: 'a test tool',
    groups: ['test'],
    params: [],
    env: {},
    envPassthrough: false,
    limits: {},
    stdin: false,
    source: { file: join(FIXTURES, 'tools.yaml'), line: 1 },
    catalogDir: FIXTURES,
    ...over,
  };
}

export function param(name: string, extra: Partial<ParamSpec> = {}): ParamSpec {
  return { name, type: 'str', required: true, hasDefault: false, hasOverride: false, ...extra };
}

export const ALICE = { user: 'alice', email: 'alice@example.com', groups: ['admin', 'osint'], tools: ['test.tool'] };

export interface TestCall {
  ctx: RunContext;
  events: RunEvent[];
}

export function call(store: Record<string, unknown> = ALICE, signal?: AbortSignal): TestCall {
  const events: RunEvent[] = [];
  const ctx: RunContext = {
    runId: randomUUID(),
    caller: { user: typeof store.user === 'string' ? store.user : 'anonymous', bucketKey: 's1' },
    store,
    events: { emit: (e) => events.push(e) },
    ...(signal ? { signal } : {}),
  };
  return { ctx, events };
}

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-runner-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A maker of temporary folders, all removed after the calling file's tests. */
export function tempFolders(): () => string {
  const made: Array<{ cleanup: () => void }> = [];
  after(() => made.forEach((d) => d.cleanup()));
  return () => {
    const d = tempDir();
    made.push(d);
    return d.dir;
  };
}

export function readPid(file: string): number {
  return Number(readFileSync(file, 'utf8').trim());
}

export { isAlive };

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until cond() holds or ms pass; returns whether it held. */
export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}
