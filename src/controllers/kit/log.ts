import type { Logger } from '../../log.js';
import { currentReconcile } from '../../runtime/reconcile-context.js';
import { keyString, type ObjectKey } from '../../store/port.js';

/** The reconcile's logger (its lines carry controller, key and reconcileId); outside the runtime, one naming kind and key. */
export function reconcileLogger(fallback: Logger, kind: string, key: ObjectKey): Logger {
  return currentReconcile()?.log ?? fallback.child({ kind, key: keyString(key) });
}
