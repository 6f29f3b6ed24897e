// `mcc serve`: the headless runtime for any MCP client, and for tests;
// `mcc check`: the catalogs and users file checked, for a catalog's CI.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCheckArgs, parseServeArgs, UsageError, USAGE, type ServeArgs } from './args';
import { runCheck } from './check';
import { stderrLogger, runEventLogger } from './stderr-logger';
import { AuthConfigError, newToken } from '../core/http/authenticator';
import { loadUsersFile, type UsersConfig } from '../core/http/users-file';
import { openSessionStorage } from '../core/session/open-storage';
import type { Principal } from '../core/identity';
import { CatalogSource } from '../core/catalog-source';
import { startServing, type RunningServer } from '../core/serve/serve';
import { formatAuditLine } from '../core/call/audit-entry';
import { catalogPathProblem } from '../core/catalog/path-glob';
import { openParseCache } from '../core/cache/parse-cache';
import { withPrefetchedParses } from '../core/catalog/prefetched-parses';
import type { PrefetchedParse } from './catalog-prefetch';
import { isLoopback } from '../core/http/request-guard';

export interface CliHooks {
  /** Called once the server is up and has said where (bin.ts stores the code cache then). */
  onReady?: () => void;
  /** What the code cache gave this start (logged with MCC_DEBUG=1). */
  codeCache?: string;
  /** The catalogs, parsed on a worker thread while this code compiled (catalog-prefetch.ts). */
  prefetched?: Promise<PrefetchedParse[]>;
}

/** The users file (tokens) and the SQLite store (every bucket): no tool sandbox shows them, even under a read path. */
function secretFiles(args: ServeArgs): string[] {
  const out = args.users ? [resolve(args.users)] : [];
  if (args.store.kind === 'sqlite') {
    const db = resolve(args.store.path);
    out.push(db, `${db}-wal`, `${db}-shm`);
  }
  return out;
}

async function serve(args: ServeArgs, hooks: CliHooks): Promise<void> {
  const logger = stderrLogger(process.env.MCC_DEBUG === '1');
  if (hooks.codeCache) logger.debug(`code cache: ${hooks.codeCache}`);
  for (const p of args.tools) {
    const problem = catalogPathProblem(p);
    if (problem) throw new UsageError(`--tools ${p}: ${problem}`);
  }
  const users: UsersConfig | undefined = args.users ? await loadUsersFile(args.users) : undefined;
  for (const w of users?.warnings ?? []) logger.warn(w);
  const owner: Principal = { user: args.user, email: args.email, groups: args.groups, grants: [] };
  const token = process.env.MCC_TOKEN || newToken();

  const storage = await openSessionStorage(args.store, {
    importFrom: args.state,
    ttlSeconds: args.sessionTtl,
    ...(args.storePrefix ? { redisPrefix: args.storePrefix } : {}),
    logger,
  });
  let catalog: CatalogSource | undefined;
  let running: RunningServer;
  try {
    running = await startServing({
      runtime: {
        storage,
        ttlSeconds: args.sessionTtl,
        limits: {
          ...(args.maxValueBytes ? { maxValueBytes: args.maxValueBytes } : {}),
          ...(args.maxBucketBytes ? { maxBucketBytes: args.maxBucketBytes } : {}),
        },
        ...(args.maxOutputBytes ? { maxOutputBytes: args.maxOutputBytes } : {}),
        logger,
        expose: args.expose,
        sandbox: args.sandbox,
        execMode: args.pty ? 'pty' : 'pipe',
        events: runEventLogger(logger),
        onAudit: (a) => logger.info(formatAuditLine(a)),
      },
      owner: { token, principal: owner },
      ...(users ? { users } : {}),
      secretFiles: secretFiles(args),
      transport: args.stdio
        ? { kind: 'stdio', ...(args.sessionKey ? { sessionKey: args.sessionKey } : {}) }
        : { kind: 'http', host: args.host, port: args.port, sessions: args.mcpSessions, stateless: args.stateless, publicHosts: args.publicHosts },
      prepare: async ({ runtime, fnResolver }) => {
        const prefetched = (await hooks.prefetched) ?? [];
        logger.debug(`catalog files parsed ahead: ${prefetched.length}`);
        const parseCache = withPrefetchedParses(openParseCache(), prefetched);
        catalog = new CatalogSource(args.tools, { logger, fnResolver, ...(parseCache ? { parseCache } : {}), onLoad: (c) => runtime.catalog.set(c) });
        await catalog.load();
        if (args.watch) catalog.watch();
      },
      ...(args.metrics ? { metrics: { ...args.metrics, version: version() } } : {}),
      logger,
    });
  } catch (e) {
    catalog?.dispose();
    if (e instanceof AuthConfigError) throw new UsageError(`${e.message} (--user, --users, $MCC_TOKEN)`);
    throw e;
  }
  logger.info(`sessions in ${running.store.description}`);
  const tools = running.runtime.catalog.current.tools.size;
  const metrics = running.metrics ? { metrics: running.metrics.url } : {};
  if (running.http) {
    process.stdout.write(`${JSON.stringify({ url: running.http.url, token, ...metrics })}\n`);
    logger.info(`serving ${tools} tools at ${running.http.url} (owner ${owner.user}${args.stateless ? ', stateless' : ''})`);
  } else {
    logger.info(`serving ${tools} tools over stdio as ${owner.user}`);
  }
  if (running.metrics) logger.info(`metrics at ${running.metrics.url}${args.metrics && !isLoopback(args.metrics.host) ? ' (not loopback: anyone who can reach it reads them)' : ''}`);
  // After the address is out: a client need not wait for the cache to be written.
  setImmediate(() => hooks.onReady?.());

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping`);
    catalog?.dispose();
    running
      .stop()
      .then(() => process.exit(0))
      .catch((e: unknown) => {
        logger.error(`shutdown failed: ${String(e)}`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // A stdio client that goes away closes our stdin: nobody is left to serve.
  if (args.stdio) process.stdin.once('end', () => shutdown('stdin closed'));
}

async function main(argv: string[], hooks: CliHooks): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (command === 'check') {
    process.exitCode = await runCheck(parseCheckArgs(rest), process.stdout);
    return;
  }
  if (command !== 'serve') throw new UsageError(`unknown command '${command}'\n\n${USAGE}`);
  await serve(parseServeArgs(rest), hooks);
}

/** The package's version: dist/cli-main.js sits in dist/, beside the package's package.json. */
function version(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Runs `mcc <argv>`; a failure is printed and sets the exit code (2 for a usage error). */
export function runCli(argv: string[], hooks: CliHooks = {}): void {
  main(argv, hooks).catch((e: unknown) => {
    const usage = e instanceof UsageError;
    process.stderr.write(`mcc: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(usage ? 2 : 1);
  });
}
