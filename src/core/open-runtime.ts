// One way to assemble a runtime, shared by the CLI, the editor and tests:
// the store over the host's storage, the executors, and the Python resolver.
import { Runtime, type AuditEntry } from './runtime';
import { SessionStore } from './session/store';
import type { SessionStorage, StoreLimits } from './session/types';
import { ExecExecutor } from './runner/exec-executor';
import type { RunMode } from './runner/run-child';
import type { RunEventSink } from './tool-run/contract';
import type { Clock, Logger } from './host';
import type { FnResolver } from './catalog/fn-resolver';
import { FnExecutor } from './fn/fn-executor';
import { FnToolResolver } from './fn/fn-tool-resolver';
import { scrubbingEvents, scrubbingLogger, type ServerSecrets } from './secrets';
import { ToolRunner } from './runner/tool-runner';
import type { ExposeMode } from './expose';
import { Sandbox } from './sandbox/sandbox';
import type { ServerSandbox } from './sandbox/profile';
import type { ProbeOptions } from './sandbox/probe';

export interface OpenRuntimeOptions {
  storage: SessionStorage;
  ttlSeconds?: number;
  limits?: Partial<StoreLimits>;
  sweepIntervalMs?: number;
  maxOutputBytes?: number;
  baseEnv?: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
  events?: RunEventSink;
  onAudit?: (entry: AuditEntry) => void;
  gate?: () => string | undefined;
  /**
   * The server's secrets (see serverSecrets): never in a tool's environment,
   * never in what the core logs. startServing always gives them.
   */
  secrets: ServerSecrets;
  expose?: ExposeMode;
  /**
   * How exec tools run when they do not choose (`pty:` in the catalog):
   * 'pipe' (headless: nobody watches a terminal, and pipes keep stdout and
   * stderr apart at half the cost) or 'pty' (the editor, where the user
   * watches each run in a terminal).
   */
  execMode: RunMode;
  /** 'default': every tool without `sandbox: false` runs in a sandbox (see sandbox/); default 'off'. */
  sandbox?: ServerSandbox;
  /** Folders the default sandbox profile shows read-only besides each catalog file's (the editor's workspace). */
  sandboxRoots?: readonly string[];
  /** Where bwrap is found (tests: a PATH without it). */
  sandboxProbe?: ProbeOptions;
  /** Signs session handles; startServing gives the owner token, so instances sharing MCC_TOKEN accept each other's. */
  handleSecret?: string;
}

export interface OpenedRuntime {
  runtime: Runtime;
  store: SessionStore;
  fnResolver: FnResolver;
}

export async function openRuntime(o: OpenRuntimeOptions): Promise<OpenedRuntime> {
  const store = await SessionStore.open({
    storage: o.storage,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.ttlSeconds !== undefined ? { ttlSeconds: o.ttlSeconds } : {}),
    ...(o.limits ? { limits: o.limits } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.sweepIntervalMs !== undefined ? { sweepIntervalMs: o.sweepIntervalMs } : {}),
  });
  const secrets = o.secrets;
  const logger = o.logger ? scrubbingLogger(o.logger, secrets) : undefined;
  const hostOpts = { secrets, ...(logger ? { logger } : {}), ...(o.baseEnv ? { baseEnv: o.baseEnv } : {}) };
  const output = o.maxOutputBytes ? { maxOutputBytes: o.maxOutputBytes } : {};
  // One policy for every kind of run: exec, transform, Python.
  const sandbox = new Sandbox({ server: o.sandbox ?? 'off', hidden: secrets.files ?? [], ...(o.sandboxRoots ? { roots: o.sandboxRoots } : {}), ...(o.sandboxProbe ? { probe: o.sandboxProbe } : {}) });
  const exec = new ExecExecutor({ ...hostOpts, ...output, defaultMode: o.execMode, sandbox });
  const fn = new FnExecutor({ ...hostOpts, sandbox });
  // One runner for both kinds: transform and cache_ttl work alike for exec and fn tools.
  const kit = new ToolRunner({ secrets, sandbox, ...(o.baseEnv ? { baseEnv: o.baseEnv } : {}), ...output, ...(o.clock ? { clock: o.clock } : {}) });
  const runtime = new Runtime({
    store,
    executors: { exec: kit.wrap(exec), fn: kit.wrap(fn) },
    secrets,
    sandbox,
    ...(logger ? { logger } : {}),
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.events ? { events: scrubbingEvents(o.events, secrets) } : {}),
    ...(o.onAudit ? { onAudit: o.onAudit } : {}),
    ...(o.gate ? { gate: o.gate } : {}),
    ...(o.expose ? { expose: o.expose } : {}),
    ...(o.handleSecret !== undefined ? { handleSecret: o.handleSecret } : {}),
  });
  return { runtime, store, fnResolver: new FnToolResolver({ ...hostOpts, sandbox }) };
}
