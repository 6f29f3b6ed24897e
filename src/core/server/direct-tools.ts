// Each catalog tool the caller may run as an MCP tool of its own, next to
// (or instead of) search / describe_tools / execute, as the runtime's expose
// mode says. Kept in step with the catalog and the mode for the life of the
// connection; every change ends in one notifications/tools/list_changed.
// A direct tool runs through exactly the path execute takes.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { directToolName } from '../catalog/direct-names';
import { formatSignature } from '../catalog/signature';
import type { ToolDef } from '../catalog/types';
import { answerCatalogCall } from './catalog-call';
import { tracedCall } from './traced-call';
import { exposure } from '../expose';
import type { ConnectionContext } from './connection-context';
import { inputSchemaOf, passThroughSchema } from './tool-schema';
import { SESSION_ARG } from './tools/session-arg';
import { visibleParams } from '../catalog/visible-params';

interface Entry {
  handle: RegisteredTool;
  /** What the client sees of it; an unchanged one is kept across catalog reloads. */
  fingerprint: string;
}

export class DirectTools {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly server: McpServer,
    private readonly ctx: ConnectionContext,
    /** search, describe_tools and execute: hidden in `direct` mode. */
    private readonly catalogTools: RegisteredTool[],
  ) {}

  /** Brings the tool list in line with the catalog, the caller's access and the mode. */
  sync(): void {
    const accessible = this.ctx.runtime.catalog.accessibleTools(this.ctx.principal);
    const show = exposure(this.ctx.runtime.catalog.expose, accessible.length);
    // Synchronous, so the server's debounce (create-server.ts) sends one list_changed for all of it.
    {
      for (const t of this.catalogTools) if (t.enabled !== show.catalogTools) t.update({ enabled: show.catalogTools });
      const wanted = new Map((show.directTools ? accessible : []).map((t) => [directToolName(t.key), t]));
      for (const [name, entry] of this.entries) {
        const tool = wanted.get(name);
        if (tool && fingerprintOf(tool) === entry.fingerprint) continue;
        entry.handle.remove();
        this.entries.delete(name);
      }
      for (const [name, tool] of wanted) {
        if (!this.entries.has(name)) this.entries.set(name, { handle: this.register(name, tool), fingerprint: fingerprintOf(tool) });
      }
    }
  }

  private register(name: string, tool: ToolDef): RegisteredTool {
    const key = tool.key;
    return this.server.registerTool(
      name,
      {
        title: tool.annotations?.title ?? key,
        description: describe(tool),
        inputSchema: directSchemaOf(tool),
        annotations: { ...tool.annotations, title: tool.annotations?.title ?? key },
        _meta: { 'mcc/key': key },
      },
      // Looked up by key at call time: a reload between listing and calling is answered by the current catalog.
      async (args, extra) => {
        const { params, session } = splitSession(tool, args);
        return tracedCall(this.ctx, extra, name, key, () => answerCatalogCall(this.server, this.ctx, key, params, extra, { structured: false, session }));
      },
    );
  }
}

// One schema per tool of the catalog, shared by every MCP session that lists it.
const directSchemas = new WeakMap<ToolDef, ReturnType<typeof passThroughSchema>>();

function directSchemaOf(tool: ToolDef): ReturnType<typeof passThroughSchema> {
  let schema = directSchemas.get(tool);
  if (!schema) directSchemas.set(tool, (schema = passThroughSchema(withSessionArg(tool, inputSchemaOf(tool)))));
  return schema;
}

// A tool with a param of its own named `session` keeps it; its callers use execute for a handle.
const takesHandle = (tool: ToolDef): boolean => !visibleParams(tool).some((p) => p.name === 'session');

/** The input schema with the optional `session` handle (session-arg.ts), unless a param has the name. */
function withSessionArg(tool: ToolDef, schema: Record<string, unknown>): Record<string, unknown> {
  if (!takesHandle(tool)) return schema;
  const properties = { ...(schema.properties as Record<string, unknown>), session: { type: 'string', description: SESSION_ARG.description } };
  return { ...schema, properties };
}

/** The tool's own params, and the session handle when the call passed one. */
function splitSession(tool: ToolDef, args: Record<string, unknown>): { params: Record<string, unknown>; session: unknown } {
  if (!takesHandle(tool) || !Object.prototype.hasOwnProperty.call(args, 'session')) return { params: args, session: undefined };
  const { session, ...params } = args;
  return { params, session };
}

/** The description a client shows: the catalog's own, then the signature agents read in search. */
function describe(tool: ToolDef): string {
  const own = tool.description.trim();
  const signature = formatSignature(tool);
  return own ? `${own}\n\n${signature.split('\n')[0].replace(/^## /, '')}` : signature;
}

function fingerprintOf(tool: ToolDef): string {
  return JSON.stringify([tool.key, describe(tool), inputSchemaOf(tool), tool.annotations ?? null]);
}
