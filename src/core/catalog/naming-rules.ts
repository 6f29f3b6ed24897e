// Naming rules for catalog tools, groups and parameters.

/** Tool names and groups: dots are reserved as key separators. */
export const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `context` is the session store argument of function tools; callers never pass it. */
export const RESERVED_PARAM_NAMES: readonly string[] = ['context'];

export function toolNameProblem(name: string, what: 'tool name' | 'group'): string | undefined {
  if (TOOL_NAME.test(name)) return undefined;
  const hint = name.includes('.') ? ' (dots separate the parts of a key and cannot appear in a name)' : '';
  return `invalid ${what} '${name}': use letters, digits, '_' and '-', not starting with '-'${hint}`;
}

export function paramNameProblem(name: string): string | undefined {
  if (RESERVED_PARAM_NAMES.includes(name)) {
    return `parameter name '${name}' is reserved (the session store is passed as 'context')`;
  }
  // Params travel as object keys, where this one names the prototype, not a value.
  if (name === '__proto__') return `parameter name '__proto__' is reserved (JavaScript objects give it a special meaning)`;
  if (PARAM_NAME.test(name)) return undefined;
  return `invalid parameter name '${name}': use letters, digits and '_', not starting with a digit`;
}

/** Key = groups (public/admin first, order otherwise kept) joined by '.', then the name. */
export function toolKey(groups: readonly string[], name: string): string {
  if (!groups.includes('public') && !groups.includes('admin')) return groups.length === 0 ? name : `${groups.join('.')}.${name}`;
  const front = groups.filter((g) => g === 'public' || g === 'admin');
  const rest = groups.filter((g) => g !== 'public' && g !== 'admin');
  return [...front, ...rest, name].join('.');
}
