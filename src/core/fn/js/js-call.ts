// One call of a JavaScript fn tool on the worker pool, answered as an
// RunOutcome: the value as JSON on success, the error and its stack when
// the tool threw, code -1 when it was stopped.
import { statSync } from 'node:fs';
import type { FnTool } from '../../catalog/types';
import { appendLine } from '../../runner/outcome-text';
import { buildToolEnv, type ServerEnv } from '../../runner/env';
import { warmPartition } from '../fn-env';
import { ToolInputError } from '../../tool-run/errors';
import type { RunContext, RunOutcome } from '../../tool-run/contract';
import { PrintedOutput } from '../printed-output';
import { outcomeSince } from '../outcome';
import type { JsResult, WorkerPool } from './worker-pool';

export interface JsCallSettings {
  server: ServerEnv;
  timeoutSec: number;
}

export async function callJsTool(
  pool: WorkerPool,
  tool: FnTool,
  params: Record<string, unknown>,
  ctx: RunContext,
  s: JsCallSettings,
  t0: number,
): Promise<RunOutcome> {
  const modulePath = tool.modulePath;
  if (!modulePath || !tool.exportName) throw new ToolInputError(`fn '${tool.target}' names no JavaScript module and export`);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(modulePath).mtimeMs;
  } catch {
    throw new ToolInputError(`JavaScript module ${modulePath} does not exist`);
  }
  const toolEnv = buildToolEnv(tool, ctx.store, s.server);
  const printed = new PrintedOutput(ctx);
  let r: JsResult;
  try {
    // The whole store goes to the worker as `context`, whatever the environment could carry.
    r = await pool.run(
      { type: 'call', modulePath, exportName: tool.exportName, mtimeMs, params, context: ctx.store, env: toolEnv.env },
      {
        timeoutMs: s.timeoutSec * 1000,
        partition: warmPartition(ctx),
        onOutput: printed.add,
        ...(tool.limits.mem_mb !== undefined ? { memMb: tool.limits.mem_mb } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      },
    );
  } finally {
    toolEnv.dispose();
  }
  const done = outcomeSince(t0, printed);
  switch (r.kind) {
    case 'ok': {
      let stderr = printed.all();
      let contextOut: Record<string, unknown> | undefined;
      if (tool.takesContext && r.contextJson !== undefined) contextOut = JSON.parse(r.contextJson) as Record<string, unknown>;
      if (tool.takesContext && r.contextError) stderr = appendLine(stderr, `mcc: the context was not written back: ${r.contextError}`);
      return done(0, r.json, stderr, { value: JSON.parse(r.json) as unknown, ...(contextOut ? { contextOut } : {}) });
    }
    case 'threw': {
      const what = r.stage === 'result' ? `the returned value is ${r.message}` : r.stack.includes(r.message) ? r.stack : `${r.message}\n${r.stack}`;
      const prefix = r.stage === 'load' ? `cannot load '${tool.target}': ` : '';
      return done(1, printed.stdout(), appendLine(printed.stderr(), prefix + what));
    }
    case 'timeout':
      return done(-1, printed.stdout(), appendLine(printed.stderr(), `timeout after ${s.timeoutSec}s`));
    case 'cancelled':
      return done(-1, printed.stdout(), appendLine(printed.stderr(), r.reason === 'shutdown' ? 'cancelled: the server is shutting down' : 'cancelled'));
    case 'crashed': {
      const note = r.outOfMemory
        ? `resource limit hit: the tool ran out of memory${tool.limits.mem_mb !== undefined ? ` (limits.mem_mb=${tool.limits.mem_mb})` : ''}; its worker was stopped`
        : `the tool's worker died: ${r.message}`;
      return done(1, printed.stdout(), appendLine(printed.stderr(), note));
    }
  }
}
