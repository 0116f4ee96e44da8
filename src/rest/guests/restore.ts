/**
 * A REST call that fails leaves the resource as it was before the call (docs/architecture.md §4): the merge patch
 * that puts back the spec fields a failed request wrote, so that the controller stops retrying the failed
 * change and the next call on the guest is judged on its own.
 */
import type { MergePatch } from '../../store/port.js';

type Json = Record<string, unknown>;

const isDict = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What a merge patch value leaves in the object: nulls delete keys. */
function applied(written: unknown, was: unknown): unknown {
  if (!isDict(written)) return written;
  const base: Json = isDict(was) ? { ...was } : {};
  for (const [k, v] of Object.entries(written)) {
    if (v === null) delete base[k];
    else base[k] = applied(v, base[k]);
  }
  return base;
}

/**
 * The patch restoring `before` for every field `patch` wrote that `current` still holds as written
 * (a field someone changed since is theirs and stays); undefined when there is nothing to restore.
 */
export function computeRestorePatch(before: Json, patch: MergePatch, current: Json): MergePatch | undefined {
  const out: Json = {};
  for (const [key, written] of Object.entries(patch)) {
    const was = before[key];
    const now = current[key];
    if (isDict(written) && isDict(was) && isDict(now)) {
      const nested = computeRestorePatch(was, written, now);
      if (nested) out[key] = nested;
      continue;
    }
    if (!same(now, applied(written, was)) || same(was, now)) continue;
    out[key] = was === undefined ? null : was;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
