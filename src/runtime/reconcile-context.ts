import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../log.js';
import type { ObjectKey } from '../store/port.js';

/**
 * The reconcile in progress, reachable from anywhere below Reconciler.reconcile without widening its
 * signature: code deep in a reconcile logs through `reconcileLog(fallback)` and its lines carry the
 * same `{ controller, key, reconcileId }` as the runtime's own.
 */
export interface ReconcileContext {
  controller: string;
  key: ObjectKey;
  reconcileId: string;
  log: Logger;
}

const storage = new AsyncLocalStorage<ReconcileContext>();

export function runInReconcileContext<R>(context: ReconcileContext, fn: () => R): R {
  return storage.run(context, fn);
}

export function currentReconcile(): ReconcileContext | undefined {
  return storage.getStore();
}

/** The current reconcile's logger, or the fallback outside any reconcile. */
export function reconcileLog(fallback: Logger): Logger {
  return storage.getStore()?.log ?? fallback;
}
