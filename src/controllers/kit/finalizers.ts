import type { Resource } from '../../api/index.js';
import { keyOf, type StateStore } from '../../store/port.js';

export function hasFinalizer(obj: Resource, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/** Guarded by resourceVersion so a concurrent finalizer change by someone else is not overwritten; returns the object written. */
function writeFinalizers<T extends Resource>(store: StateStore, obj: T, finalizers: string[]): Promise<T> {
  return store.patch<T>(obj.kind, keyOf(obj), { metadata: { finalizers } }, { resourceVersion: obj.metadata.resourceVersion });
}

/** Puts the controller's finalizer on, before anything it makes outside the store exists. */
export function addFinalizer<T extends Resource>(store: StateStore, obj: T, finalizer: string): Promise<T> {
  return writeFinalizers(store, obj, [...(obj.metadata.finalizers ?? []), finalizer]);
}

/** Takes the controller's finalizer off: the object may be gone once this returns. */
export function removeFinalizer<T extends Resource>(store: StateStore, obj: T, finalizer: string): Promise<T> {
  return writeFinalizers(store, obj, (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer));
}
