// Command-line parsing for `mcc serve` and `mcc check`, with errors a person can act on.
import { parseArgs } from 'node:util';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SESSION_LIMITS, type McpSessionLimits } from '../core/http/mcp-sessions';
import { EXPOSE_MODES, parseExposeMode, type ExposeMode } from '../core/expose';
import { parseStoreSpec, sqlitePathFor, type StoreSpec } from '../core/session/store-spec';
import { publicHostError } from '../core/http/request-guard';

export interface ServeArgs {
  tools: string[];
  users?: string;
  host: string;
  /** Names a reverse proxy forwards in Host, accepted besides the bound address. */
  publicHosts: string[];
  port: number;
  /** Where sessions live. */
  store: StoreSpec;
  /** Key prefix in Redis. */
  storePrefix?: string;
  /** The version 1 JSON state file imported into the store on first start. */
  state: string;
  sessionTtl: number;
  /** HTTP without server-side MCP sessions: any instance answers any request. */
  stateless: boolean;
  stdio: boolean;
  sessionKey?: string;
  user: string;
  email: string;
  groups: string[];
  maxValueBytes?: number;
  maxBucketBytes?: number;
  maxOutputBytes?: number;
  watch: boolean;
  /** Exec tools that do not choose run in a pseudo-terminal (default: pipes). */
  pty: boolean;
  /** Idle limit and caps of MCP sessions (HTTP). */
  mcpSessions: McpSessionLimits;
  expose: ExposeMode;
  /** 'default': every tool without `sandbox: false` runs in the default sandbox. */
  sandbox: 'off' | 'default';
  /** Prometheus metrics on a listener of their own (--metrics). */
  metrics?: { host: string; port: number; userLabel: boolean };
}

export class UsageError extends Error {}

export const USAGE = `Usage: mcc serve [options]       serve the catalogs to MCP clients
       mcc check [options] [PATH]...
                                  check the catalogs (PATHs add to --tools) and the
                                  users file; prints each problem as file:line and
                                  exits 1 on an error (warnings alone: 0)
       mcc --version

Options (check reads --tools, --users and --user, and accepts the rest):

  --tools PATH          catalog file, folder or glob pattern (repeatable; quote patterns;
                        default ./tools.yaml)
  --users PATH          users file (extra principals and tokens; anonymous access)
  --host HOST           address to bind (default 127.0.0.1)
  --port N              port (default 0 = a free port)
  --public-host NAME    a name clients reach this server by through a reverse
                        proxy, accepted in Host (and its https/http Origin)
                        besides the bound address (repeatable; e.g.
                        mcc.example.com, or name:port as the proxy sends it)
  --store SPEC          where sessions live: sqlite:PATH (default
                        $XDG_STATE_HOME/mcc/sessions.db), redis://HOST:PORT/DB
                        (shared by several instances) or memory:
  --store-prefix P      key prefix in Redis (default mcc:)
  --state PATH          version 1 JSON state file, imported into the store on
                        first start and kept renamed as a backup (default
                        $XDG_STATE_HOME/mcc/sessions.json); without --store,
                        the store is the SQLite file beside it (x.json: x.db)
  --session-ttl SEC     bucket lifetime after last use (default 86400)
  --stateless           HTTP without server-side MCP sessions, for several
                        instances behind a load balancer; every request names
                        its bucket with X-MCC-Session-Key and carries a token
  --stdio               serve one client over stdin/stdout instead of HTTP
  --session-key KEY     bucket key for --stdio (default: new each start)
  --user NAME           owner identity (default: the OS user name)
  --email EMAIL         owner e-mail (default empty)
  --groups A,B          owner groups (default admin)
  --max-value-bytes N   largest session value as JSON (default 65536)
  --max-bucket-bytes N  largest session bucket as JSON (default 1048576)
  --max-output-bytes N  largest tool output kept (default 1048576)
  --watch               reload the catalog when its files change
  --pty                 run exec tools in pseudo-terminals, as the editor does
                        (default: pipes, which keep stderr apart; a tool's
                        own pty: setting wins either way)
  --mcp-session-idle SEC        close an MCP session idle this long (default 1800; 0 = never)
  --mcp-sessions-per-user N     most open MCP sessions per user (default 100)
  --mcp-sessions-anonymous N    most open MCP sessions of all anonymous callers (default 10)
  --mcp-sessions-max N          most open MCP sessions in all (default 1000)
  --expose MODE         how agents see the catalog: catalog (search, describe_tools,
                        execute; the default), direct (each tool as its own MCP
                        tool), both, or auto (both up to 50 tools, else catalog)
  --sandbox MODE        default: run every tool that does not say 'sandbox: false'
                        in the default sandbox (bubblewrap, Linux: its catalog
                        folder read-only, system folders, a private /tmp, no
                        network, no other processes); off (the default): only
                        tools whose catalog asks for a sandbox
  --metrics [HOST:]PORT Prometheus metrics at http://HOST:PORT/metrics, a listener
                        of its own without a token (default host 127.0.0.1; name
                        another host, e.g. 0.0.0.0:9464, to open it; port 0 = free)
  --metrics-users       label calls with the caller's user name in the metrics
                        (default: only owner, user or anonymous)

The owner's bearer token is $MCC_TOKEN, or a new random one printed at start.
Compiled code and parsed catalogs are cached in $MCC_CACHE_DIR (default
$XDG_CACHE_HOME/mcc, i.e. ~/.cache/mcc); MCC_CACHE_DIR=off turns that off.
With $OTEL_EXPORTER_OTLP_ENDPOINT set, traces go there as OTLP/HTTP (JSON).`;

/** What `mcc check` checks: serve's catalogs, users file and owner. */
export interface CheckArgs {
  tools: string[];
  users?: string;
  user: string;
}

/**
 * `mcc check` takes serve's command line, so CI can check with the very
 * arguments it serves with; positional paths are catalogs too.
 */
export function parseCheckArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CheckArgs {
  let tokens;
  try {
    tokens = parseArgs({ args: argv, allowPositionals: true, strict: true, tokens: true, options: SERVE_OPTIONS }).tokens;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const positional = new Set(tokens.filter((t) => t.kind === 'positional').map((t) => t.index));
  const paths = argv.filter((_, i) => positional.has(i));
  const serve = parseServeArgs(argv.filter((_, i) => !positional.has(i)), env);
  const named = tokens.some((t) => t.kind === 'option' && t.name === 'tools');
  return {
    tools: named ? [...serve.tools, ...paths] : paths.length > 0 ? paths : serve.tools,
    ...(serve.users ? { users: serve.users } : {}),
    user: serve.user,
  };
}

const SERVE_OPTIONS = {
  tools: { type: 'string', multiple: true },
  users: { type: 'string' },
  host: { type: 'string' },
  'public-host': { type: 'string', multiple: true },
  port: { type: 'string' },
  state: { type: 'string' },
  store: { type: 'string' },
  'store-prefix': { type: 'string' },
  stateless: { type: 'boolean' },
  'session-ttl': { type: 'string' },
  stdio: { type: 'boolean' },
  'session-key': { type: 'string' },
  user: { type: 'string' },
  email: { type: 'string' },
  groups: { type: 'string' },
  'max-value-bytes': { type: 'string' },
  'max-bucket-bytes': { type: 'string' },
  'max-output-bytes': { type: 'string' },
  watch: { type: 'boolean' },
  pty: { type: 'boolean' },
  'mcp-session-idle': { type: 'string' },
  'mcp-sessions-per-user': { type: 'string' },
  'mcp-sessions-anonymous': { type: 'string' },
  'mcp-sessions-max': { type: 'string' },
  expose: { type: 'string' },
  sandbox: { type: 'string' },
  metrics: { type: 'string' },
  'metrics-users': { type: 'boolean' },
} as const;

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: false, strict: true, options: SERVE_OPTIONS });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const port = int(v.port ?? '0', '--port', 0, 65535);
  if (v.stateless && v.stdio) throw new UsageError('--stateless is for HTTP; it cannot be combined with --stdio');
  if (v['public-host'] && v.stdio) throw new UsageError('--public-host is for HTTP; it cannot be combined with --stdio');
  const store = storeFrom(v.store, v.state, env);
  if (v['store-prefix'] !== undefined) {
    if (store.kind !== 'redis') throw new UsageError('--store-prefix is for a Redis store (--store redis://...)');
    if (v['store-prefix'] === '') throw new UsageError('--store-prefix must not be empty');
  }
  return {
    tools: v.tools && v.tools.length > 0 ? v.tools : ['tools.yaml'],
    ...(v.users ? { users: v.users } : {}),
    host: v.host ?? '127.0.0.1',
    publicHosts: publicHosts(v['public-host'] ?? []),
    port,
    store,
    ...(v['store-prefix'] !== undefined ? { storePrefix: v['store-prefix'] } : {}),
    state: v.state ?? defaultStatePath(env),
    stateless: v.stateless ?? false,
    sessionTtl: int(v['session-ttl'] ?? '86400', '--session-ttl', 1, 10 * 365 * 86400),
    stdio: v.stdio ?? false,
    ...(v['session-key'] ? { sessionKey: v['session-key'] } : {}),
    user: v.user ?? safeUserName(),
    email: v.email ?? '',
    groups: v.groups !== undefined ? v.groups.split(',').map((g) => g.trim()).filter(Boolean) : ['admin'],
    ...optionalInt(v['max-value-bytes'], '--max-value-bytes', 'maxValueBytes'),
    ...optionalInt(v['max-bucket-bytes'], '--max-bucket-bytes', 'maxBucketBytes'),
    ...optionalInt(v['max-output-bytes'], '--max-output-bytes', 'maxOutputBytes'),
    watch: v.watch ?? false,
    pty: v.pty ?? false,
    mcpSessions: {
      idleMs: int(v['mcp-session-idle'] ?? String(DEFAULT_SESSION_LIMITS.idleMs / 1000), '--mcp-session-idle', 0, 365 * 86400) * 1000,
      perPrincipal: int(v['mcp-sessions-per-user'] ?? String(DEFAULT_SESSION_LIMITS.perPrincipal), '--mcp-sessions-per-user', 1, 100_000),
      anonymous: int(v['mcp-sessions-anonymous'] ?? String(DEFAULT_SESSION_LIMITS.anonymous), '--mcp-sessions-anonymous', 1, 100_000),
      total: int(v['mcp-sessions-max'] ?? String(DEFAULT_SESSION_LIMITS.total), '--mcp-sessions-max', 1, 1_000_000),
    },
    expose: exposeMode(v.expose),
    sandbox: sandboxMode(v.sandbox),
    ...metricsFrom(v.metrics, v['metrics-users'] ?? false),
  };
}

/** --metrics PORT (loopback) or HOST:PORT ([::1]:PORT for IPv6); ':PORT' names no host and is refused. */
function metricsFrom(text: string | undefined, userLabel: boolean): Pick<ServeArgs, 'metrics'> {
  if (text === undefined) {
    if (userLabel) throw new UsageError('--metrics-users labels the metrics of --metrics; give --metrics [HOST:]PORT too');
    return {};
  }
  if (/^\d+$/.test(text)) return { metrics: { host: '127.0.0.1', port: int(text, '--metrics', 0, 65535), userLabel } };
  const m = /^(?:\[([^\]]*)\]|([^:]*)):(\d+)$/.exec(text);
  if (!m) throw new UsageError(`--metrics takes [HOST:]PORT (e.g. 9464, 127.0.0.1:9464 or [::1]:9464), got '${text}'`);
  const host = m[1] ?? m[2];
  // Some tools read ':PORT' as every interface: say which is meant rather than guess.
  if (host === '') throw new UsageError(`--metrics ${text} names no host: write 127.0.0.1:${m[3]} for this machine only, or 0.0.0.0:${m[3]} to let other machines scrape it`);
  return { metrics: { host, port: int(m[3], '--metrics', 0, 65535), userLabel } };
}

function sandboxMode(text: string | undefined): 'off' | 'default' {
  if (text === undefined || text === 'off') return 'off';
  if (text === 'default') return 'default';
  throw new UsageError(`--sandbox takes default or off, got '${text}'`);
}

function exposeMode(text: string | undefined): ExposeMode {
  if (text === undefined) return 'catalog';
  const mode = parseExposeMode(text);
  if (!mode) throw new UsageError(`--expose takes one of ${EXPOSE_MODES.join(', ')}, got '${text}'`);
  return mode;
}

function int(text: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, got '${text}'`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function optionalInt<K extends string>(text: string | undefined, flag: string, key: K): Partial<Record<K, number>> {
  if (text === undefined) return {};
  return { [key]: int(text, flag, 1, 2 ** 31) } as Partial<Record<K, number>>;
}

/** --store as given; else the SQLite file beside --state; else the default SQLite file. */
function storeFrom(store: string | undefined, state: string | undefined, env: NodeJS.ProcessEnv): StoreSpec {
  if (store !== undefined) {
    const spec = parseStoreSpec(store);
    if ('error' in spec) throw new UsageError(spec.error);
    return spec;
  }
  return { kind: 'sqlite', path: sqlitePathFor(state ?? defaultStatePath(env)) };
}

export function defaultStatePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'mcc', 'sessions.json');
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'owner';
  }
}

function publicHosts(values: string[]): string[] {
  for (const h of values) {
    const problem = publicHostError(h);
    if (problem) throw new UsageError(`--public-host: ${problem}`);
  }
  return values;
}
