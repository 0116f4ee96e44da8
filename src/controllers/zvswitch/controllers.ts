import type { ZHost, ZVswitch } from '../../api/index.js';
import { createController, createInformer, type Informer, type Runnable } from '../../runtime/index.js';
import { DEFAULT_RESYNC_MS, type ControllerGroupDeps } from '../wiring.js';
import { createZHostReconciler } from '../zhost/reconciler.js';
import { createZVswitchReconciler } from './reconciler.js';

export interface NetworkControllersDeps extends ControllerGroupDeps {
  /** how often ZHost status copies the client's health counters (host facts have their own, longer period) */
  hostRefreshMs?: number;
  /** the ZHost informer when others read it too (it is run with these controllers); absent: one of their own */
  hosts?: Informer<ZHost>;
}

/** The ZVswitch and ZHost informers and controllers, as runnables for the operator's manager. */
export function createVswitchAndHostControllers(deps: NetworkControllersDeps): Runnable[] {
  const resyncMs = deps.resyncMs ?? DEFAULT_RESYNC_MS;
  const vswitches = createInformer<ZVswitch>({ store: deps.store, kind: 'ZVswitch', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  const vswitchController = createController({
    name: 'zvswitch',
    reconciler: createZVswitchReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log }),
    informer: vswitches,
    concurrency: 4,
    metrics: deps.metrics,
    log: deps.log,
  });
  const hosts = deps.hosts ?? createInformer<ZHost>({ store: deps.store, kind: 'ZHost', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  const hostController = createController({
    name: 'zhost',
    reconciler: createZHostReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log, refreshMs: deps.hostRefreshMs }),
    informer: hosts,
    concurrency: 2,
    metrics: deps.metrics,
    log: deps.log,
  });
  return [vswitches, vswitchController, hosts, hostController];
}
