/**
 * Whether a status written by an older release survived: every field the old status had keeps its
 * value (a newer release may add fields), and each old condition keeps its status, reason and
 * lastTransitionTime (the time moves only when the condition flips). Answers the paths that differ.
 */
interface Condition { type: string; status?: string; reason?: string; lastTransitionTime?: string }

const CONDITION_FIELDS = ['status', 'reason', 'lastTransitionTime'] as const;

export function statusChanges(before: unknown, after: unknown, path = 'status'): string[] {
  if (path === 'status.conditions') return conditionChanges(before as Condition[], (after ?? []) as Condition[]);
  if (isRecord(before)) {
    if (!isRecord(after)) return [path];
    return Object.keys(before).flatMap((k) => statusChanges(before[k], after[k], `${path}.${k}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [`${path}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`];
}

function conditionChanges(before: Condition[], after: Condition[]): string[] {
  return before.flatMap((c) => {
    const now = after.find((a) => a.type === c.type);
    if (!now) return [`condition ${c.type} gone`];
    return CONDITION_FIELDS.filter((f) => c[f] !== now[f]).map((f) => `condition ${c.type}.${f}: ${c[f]} → ${now[f]}`);
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
