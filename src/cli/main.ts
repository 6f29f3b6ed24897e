// `mcc serve`: the headless runtime for any MCP client, and for tests.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseServeArgs, UsageError, USAGE, type ServeArgs } from './args';
import { stderrLogger, runEventLogger } from './stderr-logger';
import { AuthConfigError, Authenticator, newToken } from '../core/http/authenticator';
import { loadUsersFile, type UsersConfig } from '../core/http/users-file';
import { startHttpServer } from '../core/http/http-server';
import { createServer } from '../core/server/create-server';
import { openSessionStorage } from '../core/session/open-storage';
import type { Principal } from '../core/identity';
import { openRuntime } from '../core/open-runtime';
import { CatalogSource } from '../core/catalog-source';

async function serve(args: ServeArgs): Promise<void> {
  const logger = stderrLogger(process.env.MCC_DEBUG === '1');
  for (const p of args.tools) {
    if (!existsSync(p)) throw new UsageError(`--tools ${p}: no such file or folder`);
  }
  const users: UsersConfig | undefined = args.users ? await loadUsersFile(args.users) : undefined;
  for (const w of users?.warnings ?? []) logger.warn(w);
  const owner: Principal = { user: args.user, email: args.email, groups: args.groups, grants: [] };
  const token = process.env.MCC_TOKEN || newToken();
  let authenticator: Authenticator;
  try {
    authenticator = new Authenticator({ token, principal: owner }, users);
  } catch (e) {
    if (e instanceof AuthConfigError) throw new UsageError(`${e.message} (--user, --users, $MCC_TOKEN)`);
    throw e;
  }

  const storage = await openSessionStorage(args.store, {
    importFrom: args.state,
    ttlSeconds: args.sessionTtl,
    ...(args.storePrefix ? { redisPrefix: args.storePrefix } : {}),
    logger,
  });
  const { runtime, store, fnResolver } = await openRuntime({
    storage,
    ttlSeconds: args.sessionTtl,
    limits: {
      ...(args.maxValueBytes ? { maxValueBytes: args.maxValueBytes } : {}),
      ...(args.maxBucketBytes ? { maxBucketBytes: args.maxBucketBytes } : {}),
    },
    ...(args.maxOutputBytes ? { maxOutputBytes: args.maxOutputBytes } : {}),
    logger,
    events: runEventLogger(logger),
    onAudit: (a) =>
      logger.info(`call ${a.user} ${a.sessionKey.slice(0, 8)} ${a.toolKey} ${JSON.stringify(a.params)} -> ${a.code} (${a.durationMs} ms)${a.error ? `: ${a.error}` : ''}`),
  });
  logger.info(`sessions in ${store.description}`);
  const catalog = new CatalogSource(args.tools, { logger, fnResolver, onLoad: (c) => runtime.setCatalog(c) });
  await catalog.load();
  if (args.watch) catalog.watch();

  let stop: () => Promise<void>;
  if (args.stdio) {
    const server = createServer({
      runtime,
      principal: owner,
      sessionKeyFor: () => args.sessionKey ?? stdioKey,
    });
    const stdioKey = `stdio-${randomBytes(12).toString('base64url')}`;
    await server.connect(new StdioServerTransport());
    logger.info(`serving ${runtime.getCatalog().tools.size} tools over stdio as ${owner.user}`);
    stop = () => server.close();
  } else {
    const http = await startHttpServer({
      runtime,
      authenticator,
      host: args.host,
      port: args.port,
      stateless: args.stateless,
      logger,
    });
    process.stdout.write(`${JSON.stringify({ url: http.url, token })}\n`);
    logger.info(`serving ${runtime.getCatalog().tools.size} tools at ${http.url} (owner ${owner.user}${args.stateless ? ', stateless' : ''})`);
    stop = () => http.close();
  }

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping`);
    catalog.dispose();
    // Tools first, so running calls still get their (cancelled) answer; then
    // the transports; then a last flush for writes that landed meanwhile.
    runtime
      .shutdown()
      .then(() => stop())
      .then(() => store.close())
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

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command !== 'serve') throw new UsageError(`unknown command '${command}'\n\n${USAGE}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  await serve(parseServeArgs(rest));
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const usage = e instanceof UsageError;
  process.stderr.write(`mcc: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(usage ? 2 : 1);
});
