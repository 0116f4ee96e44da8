import type { Condition, Resource } from '../../api/index.js';
import type { EventRecorder } from '../../runtime/events.js';
import { requeueAfter, type Result } from '../../runtime/result.js';
import type { StateStore } from '../../store/port.js';
import { sameStatus, warnOnNewProblem } from '../conditions.js';

type WithStatus = Resource<unknown, { conditions?: Condition[] } | undefined>;

/** Writes the status only when it means something else than the stored one; returns the object as it now is. */
export async function writeStatusIfChanged<T extends WithStatus>(store: StateStore, obj: T, status: NonNullable<T['status']>): Promise<T> {
  if (sameStatus(obj.status, status)) return obj;
  return store.updateStatus<T>({ ...obj, status });
}

/**
 * A problem a person must fix (an unknown host, a missing management guest): the status says so, a
 * Warning Event goes out once per new reason (not for `except`), and the object is looked at again later.
 */
export async function reportProblem<T extends WithStatus>(
  deps: { store: StateStore; events?: EventRecorder }, obj: T, status: NonNullable<T['status']>, retryMs: number, except?: readonly string[],
): Promise<Result> {
  await writeStatusIfChanged(deps.store, obj, status);
  warnOnNewProblem(deps.events, obj, obj.status?.conditions, status.conditions, except);
  return requeueAfter(retryMs);
}
