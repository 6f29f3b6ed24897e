// How the SDK checks a person's answer to an elicitation form against the
// form's schema. Left to itself, the SDK builds an Ajv instance (with its
// formats) for every MCP session at connect, a few KiB each, held as long
// as the session, which most clients abandon rather than close; forms are
// rare (a person answers each), so Ajv is built when one is checked. Not
// one shared Ajv: it keeps every schema it compiled, and each form's schema
// is a new object.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';

export const formValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return new AjvJsonSchemaValidator().getValidator<T>(schema);
  },
};
