// The embedded server: the core serve layer over workspace-state storage,
// on 127.0.0.1. What is the editor's own stays here: settings, the users
// file of the workspace, the port kept across restarts, state for the UI.
// Pure (no vscode): extension.ts hands in settings, storage, logging and
// run-event sinks, so tests run it in Node.
import { Emitter, type Logger } from '../core/host';
import { ANONYMOUS, type Principal } from '../core/identity';
import type { Catalog } from '../core/catalog/types';
import type { FnResolver } from '../core/catalog/fn-resolver';
import { newToken } from '../core/http/authenticator';
import type { McpHttpServer } from '../core/http/http-server';
import { loadUsersFile, type UsersConfig } from '../core/http/users-file';
import type { AuditEntry, Runtime } from '../core/runtime';
import { startServing, type RunningServer } from '../core/serve/serve';
import type { RunEventSink } from '../core/tool-run/contract';
import type { SessionStore } from '../core/session/store';
import type { SessionStorage, StoreChange } from '../core/session/types';
import { sweepIntervalMs, type Settings } from './settings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'error';

export interface ServerHostOptions {
  storage: SessionStorage;
  settings: () => Settings;
  logger: Logger;
  events: RunEventSink;
  onAudit: (entry: AuditEntry) => void;
  gate: () => string | undefined;
  /** Shown to the user (a warning toast in the editor). */
  warn: (message: string) => void;
  /** Resolves a workspace-relative path from the settings (the users file). */
  resolvePath: (p: string) => string;
  /** Whether the users file may be read (not in an untrusted workspace). */
  mayReadWorkspaceFiles: () => boolean;
  /** The workspace folders on disk: the default sandbox profile shows them read-only. */
  workspaceFolders: () => readonly string[];
}

interface Running {
  server: RunningServer;
  http: McpHttpServer;
  owner: Principal;
  users?: UsersConfig;
}

export class ServerHost {
  /** A fresh bearer token per activation; only the definition and the copied config carry it. */
  readonly token = newToken();
  private current: Running | undefined;
  private catalog: Catalog | undefined;
  private storeSub: { dispose(): void } | undefined;
  private transition: Promise<void> = Promise.resolve();
  private stateValue: ServerState = 'stopped';
  /** The port of the last server, reused by a restart while mcc.server.port is 0. */
  private lastPort: number | undefined;
  private lastErrorValue: string | undefined;
  private readonly stateChanged = new Emitter<ServerState>();
  private readonly storeChanged = new Emitter<StoreChange>();
  readonly onDidChangeState = this.stateChanged.event;
  /** Store changes of whichever store is open (it is replaced on restart). */
  readonly onDidChangeStore = this.storeChanged.event;

  constructor(private readonly opts: ServerHostOptions) {}

  get state(): ServerState {
    return this.stateValue;
  }
  get lastError(): string | undefined {
    return this.lastErrorValue;
  }
  get url(): string | undefined {
    return this.current?.http.url;
  }
  get port(): number | undefined {
    return this.current?.http.port;
  }
  get runtime(): Runtime | undefined {
    return this.current?.server.runtime;
  }
  get store(): SessionStore | undefined {
    return this.current?.server.store;
  }
  get fnResolver(): FnResolver | undefined {
    return this.current?.server.fnResolver;
  }
  get owner(): Principal {
    return this.current?.owner ?? this.opts.settings().owner;
  }
  connectionCount(): number {
    return this.current?.http.sessionCount() ?? 0;
  }

  /** The principal behind a bucket's user name, when this server knows it. */
  principalFor(user: string): Principal | undefined {
    const c = this.current;
    if (!c) return undefined;
    if (user === c.owner.user) return c.owner;
    if (user === ANONYMOUS.user && c.users?.anonymous) return ANONYMOUS;
    return c.users?.users.find((u) => u.principal.user === user)?.principal;
  }

  setCatalog(catalog: Catalog): void {
    this.catalog = catalog;
    this.current?.server.runtime.catalog.set(catalog);
  }

  start(): Promise<void> {
    return this.serialise(() => this.doStart());
  }
  stop(): Promise<void> {
    return this.serialise(() => this.doStop());
  }
  restart(): Promise<void> {
    return this.serialise(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  // Start/stop/restart never overlap: each waits for the one before.
  private serialise(step: () => Promise<void>): Promise<void> {
    const next = this.transition.catch(() => undefined).then(step);
    this.transition = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<void> {
    if (this.current) return;
    const s = this.opts.settings();
    const log = this.opts.logger;
    this.setState('starting');
    try {
      const users = await this.readUsers(s);
      // With port 0, the previous server's port if there was one: a restart
      // keeps the URL that copied configs and VS Code's MCP client hold.
      const port = s.port !== 0 ? s.port : (this.lastPort ?? 0);
      const server = await startServing({
        runtime: {
          storage: this.opts.storage,
          ttlSeconds: s.ttlSeconds,
          sweepIntervalMs: sweepIntervalMs(s.ttlSeconds),
          limits: {
            ...(s.maxValueBytes ? { maxValueBytes: s.maxValueBytes } : {}),
            ...(s.maxBucketBytes ? { maxBucketBytes: s.maxBucketBytes } : {}),
          },
          ...(s.maxOutputBytes ? { maxOutputBytes: s.maxOutputBytes } : {}),
          logger: log,
          events: this.opts.events,
          onAudit: this.opts.onAudit,
          gate: this.opts.gate,
          expose: s.expose,
          sandbox: s.sandbox,
          sandboxRoots: this.opts.workspaceFolders(),
          // The user watches runs live in the editor's terminals.
          execMode: 'pty',
        },
        owner: { token: this.token, principal: s.owner },
        ...(users ? { users } : {}),
        // The users file holds tokens: no tool sandbox shows it, even inside the workspace.
        ...(users && s.usersFile ? { secretFiles: [this.opts.resolvePath(s.usersFile)] } : {}),
        transport: {
          kind: 'http',
          host: '127.0.0.1',
          port,
          sessions: { idleMs: s.mcpSessionIdleSeconds * 1000 },
          onPortTaken: (taken) => this.portTaken(taken, s.port !== 0),
        },
        prepare: ({ runtime }) => {
          if (this.catalog) runtime.catalog.set(this.catalog);
        },
        logger: log,
      });
      const http = server.http as McpHttpServer;
      this.lastPort = http.port;
      this.storeSub = server.store.onDidChange((c) => this.storeChanged.fire(c));
      this.current = { server, http, owner: s.owner, ...(users ? { users } : {}) };
      this.lastErrorValue = undefined;
      log.info(`MCP server listening on ${http.url} (owner ${s.owner.user})`);
      this.setState('running');
      this.storeChanged.fire({ bucketId: '', reason: 'load' });
    } catch (e) {
      this.lastErrorValue = e instanceof Error ? e.message : String(e);
      log.error(`MCP server failed to start: ${this.lastErrorValue}`);
      this.setState('error');
      throw e;
    }
  }

  // A taken port falls back to a free one: said out loud for a configured
  // port, only logged for a reused one.
  private portTaken(port: number, configured: boolean): void {
    if (configured) this.opts.warn(`MCC: port ${port} is in use; the server uses a free port instead (see mcc.server.port).`);
    else this.opts.logger.info(`port ${port} of the previous server is taken; using a free port`);
  }

  private async readUsers(s: Settings): Promise<UsersConfig | undefined> {
    if (!s.usersFile) return undefined;
    if (!this.opts.mayReadWorkspaceFiles()) {
      this.opts.logger.warn('mcc.usersFile is ignored in an untrusted workspace');
      return undefined;
    }
    try {
      const users = await loadUsersFile(this.opts.resolvePath(s.usersFile));
      for (const w of users.warnings ?? []) this.opts.logger.warn(w);
      if (users.users.some((u) => u.principal.user === s.owner.user)) {
        this.opts.warn(`MCC: the users file defines '${s.owner.user}', the owner's own name; it is ignored until one of them is renamed.`);
        return undefined;
      }
      return users;
    } catch (e) {
      this.opts.warn(`MCC: the users file is ignored: ${(e as Error).message}`);
      return undefined;
    }
  }

  private async doStop(): Promise<void> {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    this.storeSub?.dispose();
    this.storeSub = undefined;
    try {
      // In order: no new requests, running tools cancelled and answered, store flushed, closed.
      await c.server.stop();
    } finally {
      this.setState('stopped');
    }
  }

  private setState(s: ServerState): void {
    this.stateValue = s;
    this.stateChanged.fire(s);
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.stateChanged.dispose();
    this.storeChanged.dispose();
  }
}
