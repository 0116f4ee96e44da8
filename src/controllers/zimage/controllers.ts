import type { ZImage } from '../../api/index.js';
import { createController, createInformer, type Runnable } from '../../runtime/index.js';
import { DEFAULT_RESYNC_MS, guarded, type ControllerGroupDeps } from '../wiring.js';
import { createZImageReconciler } from './reconciler.js';

export interface ImageControllersDeps extends ControllerGroupDeps {
  hostRetryMs?: number;
}

/** The ZImage informer and controller, as runnables for the operator's manager. */
export function createImageControllers(deps: ImageControllersDeps): Runnable[] {
  const images = createInformer<ZImage>({ store: deps.store, kind: 'ZImage', resyncMs: deps.resyncMs ?? DEFAULT_RESYNC_MS, labelSelector: deps.labelSelector, log: deps.log });
  const controller = createController({
    name: 'zimage',
    reconciler: guarded(deps, createZImageReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log, hostRetryMs: deps.hostRetryMs })),
    informer: images,
    // imports are long and stream through one SSH connection per host; a few at a time
    concurrency: 4,
    metrics: deps.metrics,
    log: deps.log,
  });
  return [images, controller];
}
