// JSON Schemas of catalog tools: the input schema of a direct tool, and the
// form an elicitation asks for. Built from the catalog's params (never the
// hidden override params); validation stays the runtime's, so the schema
// only describes.
import * as z from 'zod';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { ParamSpec, ParamType, ToolDef } from '../catalog/types';
import { visibleParams } from '../catalog/visible-params';
import { isPlainObject } from '../json/json-value';

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
 * A schema the MCP SDK accepts for registerTool (a Standard Schema with JSON
 * Schema): it lists as the given JSON Schema and lets every argument object
 * through unchanged, so the runtime validates (and coerces, as MCC does)
 * like any execute call.
 */
export function passThroughSchema(jsonSchema: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> {
  // A fresh copy each time: the SDK may rearrange what it lists.
  const listed = (): Record<string, unknown> => structuredClone(jsonSchema);
  return {
    '~standard': {
      version: 1,
      vendor: 'mcc',
      validate: (value: unknown) =>
        isPlainObject(value) ? { value } : { issues: [{ message: 'Invalid input: expected object' }] },
      jsonSchema: { input: listed, output: listed },
    },
  };
}

/**
 * An object schema that hands on the very object it was given. Zod copies
 * an object key by key into a new one, and a key named `__proto__` set that
 * way becomes the copy's prototype: the caller's data would be lost without
 * a word. Values the runtime takes are validated by the call pipeline.
 */
export function keptObject(): z.ZodObject {
  const schema = z.looseObject({});
  const keep: typeof schema._zod.parse = (payload) => {
    if (!isPlainObject(payload.value)) {
      payload.issues.push({ code: 'invalid_type', expected: 'object', input: payload.value, path: [], message: 'Invalid input: expected object' });
    }
    return payload;
  };
  schema._zod.parse = keep;
  schema._zod.run = keep;
  return schema;
}

