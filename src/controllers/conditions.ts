import { isDeepStrictEqual } from 'node:util';
import type { Condition, Resource } from '../api/index.js';
import type { EventRecorder } from '../runtime/events.js';

/** A condition as a controller computes it; the helper fills in the times. */
export interface ConditionInput {
  type: string;
  status: Condition['status'];
  reason: string;
  message: string;
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * Kubernetes convention: lastTransitionTime changes only when status changes, so a reason or
 * message update keeps the time of the last real transition.
 */
export function toCondition(input: ConditionInput, previous: Condition | undefined, now: string, generation?: number): Condition {
  const lastTransitionTime = previous && previous.status === input.status ? previous.lastTransitionTime : now;
  const condition: Condition = { ...input, lastTransitionTime };
  if (generation !== undefined) condition.observedGeneration = generation;
  return condition;
}

/** The given conditions in the given order, times preserved from `previous`; others in `previous` are kept after them. */
export function mergeConditions(previous: Condition[] | undefined, inputs: ConditionInput[], now: string, generation?: number): Condition[] {
  const computed = inputs.map((i) => toCondition(i, findCondition(previous, i.type), now, generation));
  const types = new Set(inputs.map((i) => i.type));
  const kept = (previous ?? []).filter((c) => !types.has(c.type));
  return [...computed, ...kept];
}

function withoutTimes(value: unknown): unknown {
  const plain = JSON.parse(JSON.stringify(value ?? {})) as Record<string, unknown>;
  if (Array.isArray(plain.conditions)) {
    plain.conditions = (plain.conditions as Record<string, unknown>[]).map((c) => ({ ...c, lastTransitionTime: undefined }));
    plain.conditions = JSON.parse(JSON.stringify(plain.conditions));
  }
  return plain;
}

/** Semantic equality of two statuses: undefined fields and condition transition times do not count. */
export function sameStatus(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(withoutTimes(a), withoutTimes(b));
}

/**
 * A Warning Event once per new reason of a Synced=False condition (a problem that needs a person:
 * HostNotFound, a refusal), not on every reconcile; `except` names reasons reported otherwise.
 */
export function warnOnNewProblem(events: EventRecorder | undefined, obj: Resource, before: Condition[] | undefined, after: Condition[] | undefined, except: readonly string[] = []): void {
  const next = findCondition(after, 'Synced');
  if (!events || !next || next.status !== 'False' || except.includes(next.reason)) return;
  const prev = findCondition(before, 'Synced');
  if (prev?.status === 'False' && prev.reason === next.reason) return;
  events.event(obj, 'Warning', next.reason, next.message);
}
