import type { Logger } from '../log.js';
import type { EventRecorder, Reconciler, RuntimeMetrics } from '../runtime/index.js';
import type { LabelSelector, StateStore } from '../store/port.js';
import type { HypervisorRegistry } from '../hypervisor/index.js';

/** How often informers re-deliver every cached object (controller-runtime's default order of size). */
export const DEFAULT_RESYNC_MS = 10 * 60_000;

/**
 * How often each host is asked for the power state of all its guests (one batched call per host):
 * a guest logged off behind the operator's back shows in status within this period plus one reconcile.
 */
export const DEFAULT_DRIFT_MS = 15_000;

/** What every kind's informer + controller group is built from (cmd/operator.ts builds it once). */
export interface ControllerGroupDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  metrics?: RuntimeMetrics;
  resyncMs?: number;
  /** the informers cache only these objects: one host's shard (`zvm.dev/host=<host>`); absent: every object */
  labelSelector?: LabelSelector;
  /** wraps every reconciler of the group (the unassigned controllers skip a resource whose host appeared) */
  guard?: (reconciler: Reconciler) => Reconciler;
}

/** The group's reconciler as the controller runs it. */
export function guarded(deps: Pick<ControllerGroupDeps, 'guard'>, reconciler: Reconciler): Reconciler {
  return deps.guard ? deps.guard(reconciler) : reconciler;
}
