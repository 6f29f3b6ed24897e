// Runs function tools: JavaScript in a pool of worker threads, Python in a
// pool of warm runner processes (one call at a time each; a subprocess of
// its own per call when they are all busy or the tool has Unix limits). Output is
// reported as it comes; the tool runner reports each run's start and end.
import { availableParallelism } from 'node:os';
import type { FnTool, ToolDef } from '../catalog/types';
import { silentLogger, type Logger } from '../host';
import type { PreparedRun, RunContext, RunOutcome, RunShape, ToolExecutor } from '../tool-run/contract';
import { DEFAULT_FN_TIMEOUT_SEC } from '../tool-run/time-limit';
import { callJsTool } from './js/js-call';
import { WorkerPool } from './js/worker-pool';
import { callPythonTool } from './python/python-call';
import { PythonPool } from './python/python-pool';
import type { PythonRunHandle } from './python/python-process';
import { serverEnv, type ServerEnv } from '../runner/env';
import type { ServerSecrets } from '../secrets';
import { Sandbox } from '../sandbox/sandbox';

export interface FnExecutorOptions {
  logger?: Logger;
  /** The server's environment, the source of each tool's base (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The server's secrets, kept out of every tool's environment (default: MCC_TOKEN). */
  secrets?: ServerSecrets;
  /** Most worker threads, and most warm Python processes, alive at once (default: CPU count, 2..8). */
  poolSize?: number;
  /** A warm Python process, or an idle JavaScript worker, with nothing to do exits after this long (default 60 s). */
  pythonIdleSec?: number;
  /** How long a Python call waits for a busy warm process before it runs one-shot (ms). */
  pythonQueueWaitMs?: number;
  /** Who runs sandboxed (default: only tools whose catalog asks for it). */
  sandbox?: Sandbox;
}


export class FnExecutor implements ToolExecutor {
  private readonly logger: Logger;
  private readonly server: ServerEnv;
  private readonly pool: WorkerPool;
  private readonly pythonPool: PythonPool;
  private readonly python = new Set<PythonRunHandle>();
  private readonly sandbox: Sandbox;

  constructor(opts: FnExecutorOptions = {}) {
    this.logger = opts.logger ?? silentLogger;
    this.server = serverEnv(opts.baseEnv, opts.secrets);
    this.sandbox = opts.sandbox ?? new Sandbox({ hidden: this.server.secrets.files ?? [] });
    const size = Math.max(1, opts.poolSize ?? Math.min(8, Math.max(2, availableParallelism())));
    const idle = opts.pythonIdleSec !== undefined ? { idleMs: opts.pythonIdleSec * 1000 } : {};
    // The same bound and idle exit for both: per user, warm workers and processes alike.
    this.pool = new WorkerPool(size, idle.idleMs);
    this.pythonPool = new PythonPool({
      maxSize: size,
      ...idle,
      ...(opts.pythonQueueWaitMs !== undefined ? { queueWaitMs: opts.pythonQueueWaitMs } : {}),
    });
  }

  describe(tool: ToolDef): RunShape {
    if (tool.kind !== 'fn') return { command: tool.key, mode: 'pipe' };
    return { command: tool.target, mode: tool.language === 'js' ? 'worker' : 'python' };
  }

  prepare(tool: ToolDef, params: Record<string, unknown>, ctx: RunContext): PreparedRun {
    if (tool.kind !== 'fn') throw new Error(`the function runtime cannot run ${tool.kind} tool '${tool.key}'`);
    // Catalogs cannot ask this (a load error); the server's setting can.
    if (tool.language === 'js' && this.sandbox.profileOf(tool)) {
      throw this.sandbox.refusal(
        tool.key,
        `'${tool.key}' would run in a sandbox (the server sandboxes every tool), but JavaScript fn tools run as worker threads inside the server and cannot be sandboxed; set 'sandbox: false' on it to run it unsandboxed`,
      );
    }
    return { ...this.describe(tool), start: () => this.start(tool, params, ctx) };
  }

  private async start(tool: FnTool, params: Record<string, unknown>, ctx: RunContext): Promise<RunOutcome> {
    const t0 = performance.now();
    // The tool runner always sets it; the default keeps a direct caller bounded too.
    const timeoutSec = ctx.timeoutSec ?? DEFAULT_FN_TIMEOUT_SEC;
    const outcome =
      tool.language === 'js'
        ? await callJsTool(this.pool, tool, params, ctx, { server: this.server, timeoutSec }, t0)
        : await callPythonTool(tool, params, ctx, { server: this.server, timeoutSec, track: (h) => this.track(h), pool: this.pythonPool, sandbox: this.sandbox }, t0);
    if (outcome.code !== 0) this.logger.debug(`fn tool '${tool.key}' ended with code ${outcome.code}`);
    return outcome;
  }

  /** Terminates the workers and kills running Python subprocesses and the warm ones. */
  async dispose(): Promise<void> {
    const running = [...this.python];
    for (const h of running) h.stop('shutdown');
    await Promise.allSettled([this.pool.dispose(), this.pythonPool.dispose(), ...running.map((h) => h.done)]);
  }

  private track(h: PythonRunHandle): () => void {
    this.python.add(h);
    return () => this.python.delete(h);
  }
}
