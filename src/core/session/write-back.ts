// Write-back of a fn tool's context, as a pure computation. The tool saw
// `snapshot` (identity + variables) and left `returned`; the plan holds only
// what it set, changed or deleted, and the value each of those keys had in
// the snapshot. The store applies it only if those keys still hold those
// values (check-and-set), so values other calls changed meanwhile are never
// overwritten, and keys the tool did not touch are never written.

import { isReservedKey } from '../identity';
import { isPlainObject, jsonEqual, jsonProblem } from '../json/json-value';
import { validateVariableName } from './variable-names';

export type WriteBackPlan =
  | {
      ok: true;
      /** Keys the tool set or changed, with their new values. */
      set: Map<string, unknown>;
      /** Keys of the snapshot the tool deleted. */
      remove: string[];
      /** Reserved identity keys the tool tried to set, change or delete; ignored. */
      strippedReserved: string[];
    }
  | { ok: false; reason: string };

/**
 * A key whose value is `undefined` counts as absent, as it would after a
 * JSON round trip. Mutating the tool's context in place (rather than
 * rebinding it) is the caller's job: this sees only the object it is given.
 */
export function planWriteBack(snapshot: unknown, returned: unknown): WriteBackPlan {
  for (const [label, v] of [['snapshot', snapshot], ['returned context', returned]] as const) {
    if (!isPlainObject(v)) {
      return { ok: false, reason: `Write-back rejected: the ${label} is not an object.` };
    }
  }
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

  // A Map keeps a variable named __proto__ plain data.
  return { ok: true, set: new Map(toSet), remove: toDelete, strippedReserved: [...stripped].sort() };
}

/** The JSON text `name` had in the snapshot (null: absent), as the backend compares it. */
export function snapshotText(snapshot: Record<string, unknown>, name: string): string | null {
  const v = Object.hasOwn(snapshot, name) ? snapshot[name] : undefined;
  return v === undefined ? null : JSON.stringify(v);
}
