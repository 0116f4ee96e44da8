import type { Condition, Resource } from '../../api/index.js';
import { ConflictError } from '../../errors.js';
import type { EventRecorder } from '../../runtime/events.js';
import { requeueAfter, type Result } from '../../runtime/result.js';
import { keyOf, type StateStore } from '../../store/port.js';
import { sameStatus, warnOnNewProblem } from '../conditions.js';

type WithStatus = Resource<unknown, { conditions?: Condition[] } | undefined>;
type StatusOf<T extends WithStatus> = NonNullable<T['status']>;

/** How a status that met a conflict goes onto the object read again (see writeStatusIfChanged). */
export interface StatusRebase<T extends WithStatus> {
  /** the status the run started from is still the stored one (default: sameStatus) */
  untouched?: (stored: T['status'], base: T['status']) => boolean;
  /** the status to write onto the object read again (default: the status as computed) */
  onto?: (current: T, status: StatusOf<T>) => StatusOf<T>;
}

/** Conflicts one write rides out before the run fails and is redone. */
const STATUS_WRITE_ATTEMPTS = 3;

/**
 * Writes the status only when it means something else than the stored one; returns the object as it now is.
 * A conflict caused by a change of anything but the status (a label or finalizer another writer set, an
 * edit of the spec) does not lose what this run did to the host (a deployed image, an acknowledged
 * restart), which nothing could read back later: the object is read again and, while its status is still
 * the one the run started from, the status goes onto it. A status moved on meanwhile is left alone: the
 * conflict is thrown and the run is redone.
 */
export async function writeStatusIfChanged<T extends WithStatus>(store: StateStore, obj: T, status: StatusOf<T>, rebase: StatusRebase<T> = {}): Promise<T> {
  if (sameStatus(obj.status, status)) return obj;
  const untouched = rebase.untouched ?? sameStatus;
  let target: T = { ...obj, status };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await store.updateStatus<T>(target);
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= STATUS_WRITE_ATTEMPTS) throw err;
      const current = await store.get<T>(obj.kind, keyOf(obj));
      if (!current || current.metadata.uid !== obj.metadata.uid || !untouched(current.status, obj.status)) throw err;
      target = { ...current, status: rebase.onto ? rebase.onto(current, status) : status };
    }
  }
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
