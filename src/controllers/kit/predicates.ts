import type { Resource } from '../../api/index.js';
import type { EventPredicate } from '../../runtime/event-handlers.js';

/** Spec, deletion and finalizer changes; status writes by others (a ledger row) do not need a reconcile. */
export const specChanges: EventPredicate = {
  update: (old: Resource, obj: Resource) =>
    old.metadata.generation !== obj.metadata.generation
    || old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp
    || (old.metadata.finalizers ?? []).join() !== (obj.metadata.finalizers ?? []).join(),
};
