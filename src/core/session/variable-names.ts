// The variable-name rule shared by set_session, write-back and the editor UI.
// A slug stays valid at once as a JSON key, a tool argument and an
// MCC_CTX_<NAME> environment-variable suffix.

import { RESERVED_KEYS, isReservedKey } from '../identity';

export const VARIABLE_NAME_PATTERN = /^[a-z_][a-z0-9_]*$/;

export const VARIABLE_NAME_RULE =
  'lowercase letters, digits and underscores, not starting with a digit (^[a-z_][a-z0-9_]*$)';

export function isValidVariableName(name: unknown): name is string {
  return validateVariableName(name) === undefined;
}

/** A caller-facing reason why `name` cannot name a session variable, or undefined when it can. */
export function validateVariableName(name: unknown): string | undefined {
  if (typeof name !== 'string') {
    return `Variable name must be a string, got ${describeType(name)}.`;
  }
  if (name.length === 0) {
    return `Variable name is empty; it must be ${VARIABLE_NAME_RULE}.`;
  }
  if (isReservedKey(name)) {
    return `'${name}' is a reserved identity key and is read-only (reserved: ${RESERVED_KEYS.join(', ')}).`;
  }
  if (!VARIABLE_NAME_PATTERN.test(name)) {
    return `Invalid variable name ${JSON.stringify(name)}: ${whatIsWrong(name)}; a name must be ${VARIABLE_NAME_RULE}.`;
  }
  return undefined;
}

function whatIsWrong(name: string): string {
  if (/^[0-9]/.test(name)) return 'it starts with a digit';
  const bad = [...new Set([...name].filter((c) => !/[a-z0-9_]/.test(c)))];
  const shown = bad.slice(0, 5).map((c) => JSON.stringify(c)).join(', ');
  return `it contains ${bad.length === 1 ? 'the character' : 'the characters'} ${shown}${bad.length > 5 ? ', ...' : ''}`;
}

function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}
