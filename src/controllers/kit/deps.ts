import type { HypervisorRegistry } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { StateStore } from '../../store/port.js';

/** What a reconciler of a kind that lives on a host is built from; kinds add their own tuning. */
export interface HostReconcilerDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  clock?: () => Date;
  /** how soon to look again for a host (or the part of it the kind needs) that is not (yet) known; default DEFAULT_HOST_RETRY_MS */
  hostRetryMs?: number;
}
