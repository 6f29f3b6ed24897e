// JSON Schemas of catalog tools: the input schema of a direct tool, and the
// form an elicitation asks for. Built from the catalog's params (never the
// hidden override params); validation stays the runtime's, so the schema
// only describes.
import { z } from 'zod/v4';
import type { ParamSpec, ParamType, ToolDef } from '../catalog/types';
import { visibleParams } from '../catalog/visible-params';

const JSON_TYPE: Record<ParamType, string> = {
  str: 'string',
  int: 'integer',
  float: 'number',
  bool: 'boolean',
  list: 'array',
  dict: 'object',
};

/** One param as a JSON Schema property. */
export function paramSchema(p: ParamSpec): Record<string, unknown> {
  const s: Record<string, unknown> = { type: JSON_TYPE[p.type] };
  if (p.description?.trim()) s.description = p.description.trim();
  if (p.hasDefault && p.default !== undefined) s.default = p.default;
  if (p.example !== undefined) s.examples = [p.example];
  return s;
}

/** The tool's input schema: its visible params, the required ones required, nothing else. */
export function inputSchemaOf(tool: ToolDef): Record<string, unknown> {
  const params = visibleParams(tool);
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, paramSchema(p)])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * A schema object the MCP SDK accepts for registerTool: it lists as the
 * given JSON Schema and lets every argument object through unchanged, so
 * the runtime validates (and coerces, as MCC does) like any execute call.
 */
export function passThroughSchema(jsonSchema: Record<string, unknown>): z.ZodType {
  const schema = z.looseObject({});
  // A fresh copy each time: zod rearranges the object it is given while it lists it.
  schema._zod.toJSONSchema = () => structuredClone(jsonSchema);
  return schema;
}

