import type { ZHost, ZVswitch } from '../../api/index.js';
import type { Logger } from '../../log.js';
import { createController, createInformer, type EventRecorder, type Runnable, type RuntimeMetrics } from '../../runtime/index.js';
import type { StateStore } from '../../store/port.js';
import { createZHostReconciler } from '../zhost/reconciler.js';
import type { HypervisorRegistry } from '../zguest/reconciler.js';
import { createZVswitchReconciler } from './reconciler.js';

export interface NetworkControllersDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  metrics?: RuntimeMetrics;
  resyncMs?: number;
  /** ZHost status refresh when a host names no resyncSeconds */
  hostRefreshMs?: number;
}

/** The ZVswitch and ZHost informers and controllers, as runnables for the operator's manager. */
export function createVswitchAndHostControllers(deps: NetworkControllersDeps): Runnable[] {
  const resyncMs = deps.resyncMs ?? 10 * 60_000;
  const vswitches = createInformer<ZVswitch>({ store: deps.store, kind: 'ZVswitch', resyncMs, log: deps.log });
  const vswitchController = createController({
    name: 'zvswitch',
    reconciler: createZVswitchReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log }),
    informer: vswitches,
    concurrency: 4,
    metrics: deps.metrics,
    log: deps.log,
  });
  const hosts = createInformer<ZHost>({ store: deps.store, kind: 'ZHost', resyncMs, log: deps.log });
  const hostController = createController({
    name: 'zhost',
    reconciler: createZHostReconciler({ store: deps.store, hypervisors: deps.hypervisors, log: deps.log, refreshMs: deps.hostRefreshMs }),
    informer: hosts,
    concurrency: 2,
    metrics: deps.metrics,
    log: deps.log,
  });
  return [vswitches, vswitchController, hosts, hostController];
}
