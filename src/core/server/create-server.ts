// Builds one MCP server per connection, one file per tool (as the MCP
// `everything` example does), bound to the connection's principal.
import { McpServer } from '@modelcontextprotocol/server';
import type { ConnectionContext } from './connection-context';
import { ConnectionFeedback } from './call-feedback';
import { registerSearch } from './tools/search';
import { registerExecute } from './tools/execute';
import { registerDescribeTools } from './tools/describe-tools';
import { registerGetSession } from './tools/get-session';
import { registerSetSession } from './tools/set-session';
import { addAgentFeatures } from './agent-features';
import { formValidator } from './form-validator';
import { chooseBucket, requestBucket } from './bucket-key';
import { registerTaskMethods } from './tasks/task-methods';
import { registerLegacyTaskMethods } from './tasks/legacy-task-methods';

export const SERVER_NAME = 'mcc';
export const SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'MCC serves a catalog of tools. Find them with search (keywords) or describe_tools, run one with execute(key, params). ' +
  'Stash values the next tools need with set_session(name, value) and read them with get_session(name); every tool run ' +
  'in this session receives them automatically. Depending on the server, each catalog tool may also be a tool of its own ' +
  '(its key with "." written "__"); prompts find_and_run, explain_tool and debug_error and the resources mcc://tools/{key} ' +
  'and mcc://session help too.';

export interface ConnectionOptions {
  runtime: ConnectionContext['runtime'];
  principal: ConnectionContext['principal'];
  /** The bucket of a connection whose requests name none (stdio's one client). */
  fixedBucketKey?: string;
  /** A 2026-07-28 request (a server per request): input is asked for with input-required results. */
  modern?: boolean;
}

export function createServer(connection: ConnectionOptions): McpServer {
  // logging: run start/exit and stderr of a caller's own runs, at the level it sets.
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions: INSTRUCTIONS,
      capabilities: { logging: {} },
      jsonSchemaValidator: formValidator,
      // A catalog reload changes many tools at once: one tools/list_changed for them all.
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    },
  );
  const rules = { user: connection.principal.user, handles: connection.runtime.handles, ...(connection.fixedBucketKey ? { fixedKey: connection.fixedBucketKey } : {}) };
  const ctx: ConnectionContext = {
    runtime: connection.runtime,
    principal: connection.principal,
    bucketKeyFor: (extra) => requestBucket(extra, rules).key,
    bucketFor: (extra, session) => chooseBucket(extra, session, rules),
    modern: connection.modern === true,
    clientName: () => server.server.getClientVersion()?.name,
    feedback: new ConnectionFeedback(server, connection.runtime, connection.modern === true),
  };
  const catalogTools = [registerSearch(server, ctx), registerExecute(server, ctx), registerDescribeTools(server, ctx)];
  registerGetSession(server, ctx);
  registerSetSession(server, ctx);
  addAgentFeatures(server, ctx, catalogTools);
  if (ctx.modern) registerTaskMethods(server, connection.runtime.tasks, connection.principal.user);
  else registerLegacyTaskMethods(server, connection.runtime.tasks, connection.principal.user);
  return server;
}
