// Write-back of a fn tool's context, as a pure computation. The tool saw
// `snapshot` (identity + variables) and left `returned`; only what it set,
// changed or deleted is applied to `current`, so values other calls changed
// meanwhile survive (no lost updates).

import { isReservedKey } from '../identity';
import { jsonEqual, jsonProblem } from './json-value';
import { validateVariableName } from './names';

export type WriteBackPlan =
  | {
      ok: true;
      /** `current` with the tool's changes applied (values shared with `returned`). */
      next: Record<string, unknown>;
      /** Keys whose stored value changes (set, changed or removed), in that order. */
      changed: string[];
      /** Reserved identity keys the tool tried to set, change or delete; ignored. */
      strippedReserved: string[];
    }
  | { ok: false; reason: string };

/**
 * A key whose value is `undefined` counts as absent, as it would after a
 * JSON round trip. Mutating the tool's context in place (rather than
 * rebinding it) is the caller's job: this sees only the object it is given.
 */
export function computeWriteBack(current: unknown, snapshot: unknown, returned: unknown): WriteBackPlan {
  for (const [label, v] of [['current variables', current], ['snapshot', snapshot], ['returned context', returned]] as const) {
    if (!isPlainRecord(v)) {
      return { ok: false, reason: `Write-back rejected: the ${label} is not an object.` };
    }
  }
  const cur = current as Record<string, unknown>;
  const snap = snapshot as Record<string, unknown>;
  const ret = returned as Record<string, unknown>;

  const stripped = new Set<string>();
  const badNames: string[] = [];
  const toSet: Array<[string, unknown]> = [];
  for (const key of Object.keys(ret)) {
    const value = ret[key];
    if (value === undefined) continue;
    const before = Object.hasOwn(snap, key) ? snap[key] : undefined;
    const touched = before === undefined || !jsonEqual(before, value);
    if (isReservedKey(key)) {
      if (touched) stripped.add(key);
      continue;
    }
    if (validateVariableName(key) !== undefined) {
      badNames.push(key);
      continue;
    }
    if (!touched) continue;
    const problem = jsonProblem(value, `context${JSON.stringify([key])}`);
    if (problem) {
      return { ok: false, reason: `Write-back rejected: ${problem}. Nothing was stored.` };
    }
    toSet.push([key, value]);
  }
  if (badNames.length > 0) {
    const shown = badNames.slice(0, 5).map((k) => JSON.stringify(k)).join(', ');
    return {
      ok: false,
      reason:
        `Write-back rejected: ${badNames.length === 1 ? 'key' : 'keys'} ${shown}${badNames.length > 5 ? ', ...' : ''} ` +
        `${badNames.length === 1 ? 'is not a valid variable name' : 'are not valid variable names'} ` +
        `(${validateVariableName(badNames[0])}). Nothing was stored.`,
    };
  }

  const toDelete: string[] = [];
  for (const key of Object.keys(snap)) {
    if (snap[key] === undefined || (Object.hasOwn(ret, key) && ret[key] !== undefined)) continue;
    if (isReservedKey(key)) stripped.add(key);
    else toDelete.push(key);
  }

  const next = new Map(Object.entries(cur));
  const changed: string[] = [];
  for (const [key, value] of toSet) {
    if (!next.has(key) || !jsonEqual(next.get(key), value)) changed.push(key);
    next.set(key, value);
  }
  for (const key of toDelete) {
    if (next.delete(key)) changed.push(key);
  }
  // Object.fromEntries defines own properties, so a variable named __proto__ stays data.
  return { ok: true, next: Object.fromEntries(next), changed, strippedReserved: [...stripped].sort() };
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
