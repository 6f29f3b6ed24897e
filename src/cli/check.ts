// `mcc check`: loads the catalogs and the users file as `mcc serve` would,
// and prints every problem as `file:line[:column]: severity: message`, the
// form compilers use, so CI logs and problem matchers point at the line (the
// editor shows the same diagnostics in its Problems panel). Exit code 1 when
// there is an error, else 0: warnings alone do not fail a build.
import { relative, resolve, sep, isAbsolute } from 'node:path';
import type { CheckArgs } from './args';
import { stderrLogger } from './stderr-logger';
import { loadCatalog } from '../core/catalog/load';
import { catalogPathProblem } from '../core/catalog/path-glob';
import type { CatalogDiagnostic } from '../core/catalog/types';
import { FnToolResolver } from '../core/fn/fn-tool-resolver';
import { AuthConfigError, Authenticator, newToken } from '../core/http/authenticator';
import { loadUsersFile, UsersFileError, type UsersConfig } from '../core/http/users-file';
import { serverSecrets } from '../core/secrets';

export interface CheckOutput {
  write(text: string): unknown;
}

/** Checks, prints what it found and a summary; resolves the exit code. */
export async function runCheck(args: CheckArgs, out: CheckOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const problems: CatalogDiagnostic[] = [];
  const users = args.users ? await checkUsers(args.users, env, problems) : undefined;
  checkOwner(args.user, users, args.users, problems);
  const { tools, files } = await checkCatalogs(args.tools, users, env, problems);
  const sorted = problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  for (const p of sorted) out.write(`${formatProblem(p)}\n`);
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  out.write(`mcc check: ${tools} tool${tools === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}; ${count(errors, 'error')}, ${count(warnings, 'warning')}\n`);
  return errors > 0 ? 1 : 0;
}

/** One line: the path relative to the working folder when under it, the line, the column when known. */
export function formatProblem(p: CatalogDiagnostic, cwd = process.cwd()): string {
  const rel = relative(cwd, p.file);
  const file = rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel : p.file;
  return `${file}:${p.line}${p.column ? `:${p.column}` : ''}: ${p.severity}: ${p.message}`;
}

// The catalogs as serve loads them, Python and JavaScript function tools
// resolved too (their introspection finds a missing module or parameter).
async function checkCatalogs(paths: string[], users: UsersConfig | undefined, env: NodeJS.ProcessEnv, problems: CatalogDiagnostic[]): Promise<{ tools: number; files: number }> {
  const loadable: string[] = [];
  for (const p of paths) {
    // A path serve would refuse to start with is an error here, not the loader's warning.
    const problem = catalogPathProblem(p);
    if (problem) problems.push({ severity: 'error', file: resolve(p), line: 1, message: `catalog path '${p}': ${problem}` });
    else loadable.push(p);
  }
  if (loadable.length === 0) return { tools: 0, files: 0 };
  const logger = stderrLogger(env.MCC_DEBUG === '1');
  const secrets = serverSecrets({ ...(env.MCC_TOKEN ? { ownerToken: env.MCC_TOKEN } : {}), ...(users ? { users } : {}), env });
  const fnResolver = new FnToolResolver({ baseEnv: env, secrets, logger });
  const catalog = await loadCatalog(loadable.map((p) => resolve(p)), { env, fnResolver, logger });
  problems.push(...catalog.diagnostics);
  return { tools: catalog.tools.size, files: catalog.files.length };
}

async function checkUsers(path: string, env: NodeJS.ProcessEnv, problems: CatalogDiagnostic[]): Promise<UsersConfig | undefined> {
  const file = resolve(path);
  try {
    const users = await loadUsersFile(path, env);
    for (const w of users.warnings ?? []) problems.push(located('warning', w, path, file));
    return users;
  } catch (e) {
    if (!(e instanceof UsersFileError)) throw e;
    problems.push(located('error', e.message, path, file));
    return undefined;
  }
}

// Serve refuses an owner the users file also defines: so does check.
function checkOwner(user: string, users: UsersConfig | undefined, usersPath: string | undefined, problems: CatalogDiagnostic[]): void {
  try {
    new Authenticator({ token: newToken(), principal: { user, email: '', groups: [], grants: [] } }, users);
  } catch (e) {
    if (!(e instanceof AuthConfigError)) throw e;
    problems.push({ severity: 'error', file: usersPath ? resolve(usersPath) : '(command line)', line: 1, message: `${e.message} (--user, --users)` });
  }
}

/** A users-file message (`PATH:LINE: text` or `PATH: text`) as a located problem. */
function located(severity: CatalogDiagnostic['severity'], message: string, path: string, file: string): CatalogDiagnostic {
  const rest = message.startsWith(`${path}:`) ? message.slice(path.length + 1) : message;
  const m = /^(\d+): ([\s\S]*)$/.exec(rest);
  return { severity, file, line: m ? Number(m[1]) : 1, message: m ? m[2] : rest.trimStart() };
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
