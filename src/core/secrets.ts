// The server's own secrets: the environment variables that hold them and
// the values themselves. Hosts fill this from what they loaded (the owner
// token, the users file); the core keeps every one of them out of a tool's
// environment and out of the logs.
import type { Logger } from './host';
import type { UsersConfig } from './users';
import type { RunEvent, RunEventSink } from './tool-run/contract';

/** The variable that carries the owner's bearer token. */
export const OWNER_TOKEN_VAR = 'MCC_TOKEN';

/** The trace exporter's headers (often a vendor's API key): no tool gets them, even with env_passthrough. */
export const OTLP_SECRET_VARS = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'];

// Shorter values are not secret material on their own (tokens are at least
// 16 characters); scrubbing them from logs would mangle ordinary text.
const MIN_SECRET_LENGTH = 16;

export interface ServerSecrets {
  /** Names of server environment variables no tool ever receives. */
  readonly names: ReadonlySet<string>;
  /** Secret values, longest first: no tool's base environment holds one, no log line shows one. */
  readonly values: readonly string[];
  /** Files that hold secrets (the users file): no sandbox shows them, even under a read path. */
  readonly files?: readonly string[];
}

/** What every server keeps back even when a host gave nothing else: MCC_TOKEN. */
export const MINIMAL_SECRETS: ServerSecrets = { names: new Set([OWNER_TOKEN_VAR]), values: [] };

export interface SecretSources {
  /** The owner's bearer token (from MCC_TOKEN, or generated). */
  ownerToken?: string;
  /** The users file as loaded: its tokens, token hashes and the variables they came from. */
  users?: UsersConfig;
  /** The server's environment, to learn the values of the variables above. */
  env?: NodeJS.ProcessEnv;
  /** Absolute paths of files that hold secrets (the users file). */
  files?: readonly string[];
}

export function serverSecrets(src: SecretSources): ServerSecrets {
  const names = new Set([OWNER_TOKEN_VAR, ...OTLP_SECRET_VARS, ...(src.users?.tokenEnvNames ?? [])]);
  const values = new Set<string>();
  const add = (v: string | undefined): void => {
    if (v !== undefined && v.length >= MIN_SECRET_LENGTH) values.add(v);
  };
  add(src.ownerToken);
  for (const u of src.users?.users ?? []) {
    add(u.token);
    if (u.tokenSha256) {
      add(u.tokenSha256.toLowerCase());
      add(u.tokenSha256.toUpperCase());
    }
  }
  for (const name of names) add(src.env?.[name]);
  return { names, values: [...values].sort((a, b) => b.length - a.length), ...(src.files?.length ? { files: [...src.files] } : {}) };
}

/** Whether a server variable is, or carries, one of the server's secrets. */
export function holdsSecret(name: string, value: string, secrets: ServerSecrets): boolean {
  return secrets.names.has(name) || secrets.values.some((s) => value.includes(s));
}

/** The text with every secret value written as ***. */
export function scrubSecrets(text: string, secrets: ServerSecrets): string {
  let out = text;
  for (const s of secrets.values) if (out.includes(s)) out = out.split(s).join('***');
  return out;
}

/** A logger that never writes a secret value. */
export function scrubbingLogger(logger: Logger, secrets: ServerSecrets): Logger {
  if (secrets.values.length === 0) return logger;
  const scrub = (m: string): string => scrubSecrets(m, secrets);
  return {
    info: (m) => logger.info(scrub(m)),
    warn: (m) => logger.warn(scrub(m)),
    error: (m) => logger.error(scrub(m)),
    debug: (m) => logger.debug(scrub(m)),
  };
}

/** Run events whose command and error never show a secret value (tool output passes as it is). */
export function scrubbingEvents(sink: RunEventSink, secrets: ServerSecrets): RunEventSink {
  if (secrets.values.length === 0) return sink;
  return {
    emit(e: RunEvent) {
      if (e.type === 'started') sink.emit({ ...e, command: scrubSecrets(e.command, secrets) });
      else if (e.type === 'exited' && e.error !== undefined) sink.emit({ ...e, error: scrubSecrets(e.error, secrets) });
      else sink.emit(e);
    },
  };
}
