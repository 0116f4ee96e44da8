/**
 * The first write on a guest that a host can see: the finalizer and the owner-uid annotation in one
 * patch, before anything is made on z/VM, so the mark the host will carry is recorded on the object
 * (and travels with it: `clusterctl move`, a restore).
 */
import { FINALIZER, OWNER_UID_ANNOTATION, type Resource, type ZGuest } from '../../api/index.js';
import { keyOf, type StateStore } from '../../store/port.js';
import { markOf } from './ownership.js';
import { hasFinalizer, isDeleting } from './plan.js';

export function needsClaim(guest: ZGuest): boolean {
  return !isDeleting(guest) && (!hasFinalizer(guest) || guest.metadata.annotations?.[OWNER_UID_ANNOTATION] === undefined);
}

/** The claim's metadata: the finalizer list with ours in it, and the owner-uid annotation. */
export function claimMetadata(guest: ZGuest): { finalizers: string[]; annotations: Record<string, string> } {
  const finalizers = hasFinalizer(guest) ? guest.metadata.finalizers ?? [] : [...(guest.metadata.finalizers ?? []), FINALIZER];
  return { finalizers, annotations: { [OWNER_UID_ANNOTATION]: markOf(guest) } };
}

/** Guarded by resourceVersion, as every finalizer write; returns the object written. */
export function claimGuest(store: StateStore, guest: ZGuest): Promise<ZGuest> {
  return store.patch<ZGuest>('ZGuest', keyOf(guest), { metadata: claimMetadata(guest) }, { resourceVersion: guest.metadata.resourceVersion });
}

/**
 * The claim the host labeler stamps with a new guest's host label (runtime/sharding/labeler.ts), by the
 * reconciler's own rule: only where the guest's host has a hypervisor (a guest no host has seen yet goes
 * without it, so that deleting it does not wait), and not on a guest being deleted.
 */
export function claimWithLabel(obj: Resource, hostKnown: boolean): ReturnType<typeof claimMetadata> | undefined {
  return obj.kind === 'ZGuest' && hostKnown && needsClaim(obj as ZGuest) ? claimMetadata(obj as ZGuest) : undefined;
}
