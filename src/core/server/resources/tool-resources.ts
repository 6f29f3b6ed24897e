// mcc://tools/{key}: one catalog tool as a resource, for the tools the
// caller may run only (listed, templated, completed). Read, it is the tool's
// signature, description and parameters, and where it is defined, as
// Markdown for people and models and as JSON for programs.
import type { McpServer } from '@modelcontextprotocol/server';
import { ResourceTemplate } from '@modelcontextprotocol/server';
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { directToolName } from '../../catalog/direct-names';
import { formatSignature, returnType } from '../../catalog/signature';
import type { ToolDef } from '../../catalog/types';
import type { ConnectionContext } from '../connection-context';
import { inputSchemaOf } from '../tool-schema';
import { resourceNotFound } from './not-found';

export const TOOL_URI_PREFIX = 'mcc://tools/';

export function toolUri(key: string): string {
  return `${TOOL_URI_PREFIX}${key}`;
}

export function registerToolResources(server: McpServer, ctx: ConnectionContext): void {
  const template = new ResourceTemplate(`${TOOL_URI_PREFIX}{key}`, {
    list: () => ({
      resources: ctx.runtime.catalog.accessibleTools(ctx.principal).map((t) => ({
        uri: toolUri(t.key),
        name: t.key,
        title: t.annotations?.title ?? t.key,
        description: t.description.trim().split('\n')[0] || `Catalog tool ${t.key}`,
        mimeType: 'text/markdown',
      })),
    }),
  });
  server.registerResource(
    'tool',
    template,
    {
      title: 'Catalog tool',
      description: 'A catalog tool you may run: its signature, description, parameters and the file and line that define it.',
      mimeType: 'text/markdown',
    },
    (uri, variables): ReadResourceResult => {
      const key = Array.isArray(variables.key) ? variables.key.join(',') : variables.key;
      const tool = ctx.runtime.catalog.accessibleTools(ctx.principal).find((t) => t.key === decodeURIComponent(key ?? ''));
      // A tool the caller may not run reads exactly like one that does not exist.
      if (!tool) throw resourceNotFound(uri.href);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: toolMarkdown(tool) }, { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(toolJson(tool), null, 2) }] };
    },
  );
}

function kindOf(tool: ToolDef): string {
  if (tool.kind === 'exec') return 'shell command';
  return tool.language === 'js' ? `JavaScript function ${tool.target}` : `Python function ${tool.target}`;
}

export function toolMarkdown(tool: ToolDef): string {
  return [
    formatSignature(tool),
    '',
    `- kind: ${kindOf(tool)}`,
    `- groups: ${tool.groups.join(', ') || '(none)'}`,
    `- defined in: ${tool.source.file}:${tool.source.line}`,
    `- run with: execute(key="${tool.key}", params={...}), or the tool ${directToolName(tool.key)} where tools are offered one by one`,
  ].join('\n');
}

function toolJson(tool: ToolDef): Record<string, unknown> {
  return {
    key: tool.key,
    name: tool.name,
    description: tool.description,
    groups: tool.groups,
    kind: tool.kind === 'exec' ? 'exec' : `fn:${tool.language}`,
    returns: returnType(tool),
    inputSchema: inputSchemaOf(tool),
    ...(tool.example ? { example: tool.example } : {}),
    source: { file: tool.source.file, line: tool.source.line },
    directName: directToolName(tool.key),
  };
}
