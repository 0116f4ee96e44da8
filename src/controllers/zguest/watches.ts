import { hostOf, type Resource, type ZGuest } from '../../api/index.js';
import type { KeyMapper } from '../../runtime/result.js';
import { keyOf } from '../../store/port.js';

/**
 * Enqueue strategies for the runtime (controller-runtime's handler.EnqueueRequestsFromMapFunc):
 * `list` reads the ZGuest informer cache, so mapping costs no store round trip.
 */

/** A change to one claimant of a userid (created, deleted, released) re-decides the claim for the others. */
/** `list` answers every guest, or at least those with the changed guest's host and userid (an index). */
export function mapUseridRivals(list: (changed: ZGuest) => ZGuest[]): KeyMapper {
  return (obj: Resource) => {
    const changed = obj as ZGuest;
    const userid = changed.spec?.userid?.toUpperCase();
    if (!userid) return [];
    return list(changed)
      .filter((g) => g.metadata.uid !== changed.metadata.uid && g.spec.userid.toUpperCase() === userid && hostOf(g) === hostOf(changed))
      .map(keyOf);
  };
}

/** A ZHost that appears or changes wakes the guests placed on it (e.g. those waiting with HostNotFound). */
export function mapHostToGuests(list: () => ZGuest[]): KeyMapper {
  return (host: Resource) => list().filter((g) => hostOf(g) === host.metadata.name).map(keyOf);
}
