import type { Logger } from '../log.js';
import type { EventRecorder, RuntimeMetrics } from '../runtime/index.js';
import type { LabelSelector, StateStore } from '../store/port.js';
import type { HypervisorRegistry } from './zguest/reconciler.js';

/** How often informers re-deliver every cached object (controller-runtime's default order of size). */
export const DEFAULT_RESYNC_MS = 10 * 60_000;

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
}
