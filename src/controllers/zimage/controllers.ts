import type { ZImage } from '../../api/index.js';
import type { Logger } from '../../log.js';
import { createController, createInformer, type EventRecorder, type Runnable, type RuntimeMetrics } from '../../runtime/index.js';
import type { StateStore } from '../../store/port.js';
import type { HypervisorRegistry } from '../zguest/reconciler.js';
import { createZImageReconciler } from './reconciler.js';

export interface ImageControllersDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  metrics?: RuntimeMetrics;
  resyncMs?: number;
  hostRetryMs?: number;
}

/** The ZImage informer and controller, as runnables for the operator's manager. */
export function createImageControllers(deps: ImageControllersDeps): Runnable[] {
  const images = createInformer<ZImage>({ store: deps.store, kind: 'ZImage', resyncMs: deps.resyncMs ?? 10 * 60_000, log: deps.log });
  const controller = createController({
    name: 'zimage',
    reconciler: createZImageReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log, hostRetryMs: deps.hostRetryMs }),
    informer: images,
    // imports are long and stream through one SSH connection per host; a few at a time
    concurrency: 4,
    metrics: deps.metrics,
    log: deps.log,
  });
  return [images, controller];
}
