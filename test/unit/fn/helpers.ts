// Hand-built function tools and call contexts for the fn tests.
import { join } from 'node:path';
import type { FnTool } from '../../../src/core/catalog/types';
import type { RunEvent } from '../../../src/core/tool-run/contract';
import { FnExecutor, type FnExecutorOptions } from '../../../src/core/fn/fn-executor';
import { ToolRunner } from '../../../src/core/runner/tool-runner';

export const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'fn');
export const JS_DIR = join(FIXTURES, 'js');
export const PY_DIR = join(FIXTURES, 'py');

export { ALICE } from '../runner/helpers';

function base(name: string, catalogDir: string): Omit<FnTool, 'language' | 'target' | 'takesContext'> {
  return {
    kind: 'fn',
    key: `fn.${name}`,
    name,
    description: '',
    groups: ['fn'],
    params: [],
    env: {},
    envPassthrough: false,
    limits: {},
    stdin: false,
    source: { file: join(catalogDir, 'tools.yaml'), line: 7 },
    catalogDir,
  };
}

export function jsTool(exportName: string, over: Partial<FnTool> = {}, file = join(JS_DIR, 'tools.mjs')): FnTool {
  return { ...base(exportName, JS_DIR), language: 'js', target: `./${file}:${exportName}`, modulePath: file, exportName, takesContext: true, paramsDeclared: true, ...over };
}

export function pyTool(target: string, over: Partial<FnTool> = {}): FnTool {
  const name = target.split(/[.:]/).pop() ?? 'tool';
  return { ...base(name, PY_DIR), language: 'python', target, python: 'python3', takesContext: false, paramsDeclared: false, ...over };
}

// Param and call-context builders are shared with the exec runner's tests.
export { param, call, type TestCall } from '../runner/helpers';

export function printed(events: RunEvent[]): string {
  return events.map((e) => (e.type === 'output' ? e.data : '')).join('');
}

/** A function executor inside the tool runner (events, time limit, transform, cache_ttl), as the runtime uses it. */
export function keptFn(opts: FnExecutorOptions & { defaultTimeoutSec?: number } = {}): ReturnType<ToolRunner['wrap']> {
  const { defaultTimeoutSec, ...fnOpts } = opts;
  const runner = new ToolRunner({ ...(opts.baseEnv ? { baseEnv: opts.baseEnv } : {}), ...(opts.secrets ? { secrets: opts.secrets } : {}), ...(defaultTimeoutSec !== undefined ? { fnTimeoutSec: defaultTimeoutSec } : {}) });
  return runner.wrap(new FnExecutor(fnOpts));
}
