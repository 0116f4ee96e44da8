import { POOL_LABEL, type Resource, type ZGuest, type ZGuestPool } from '../../api/index.js';
import { createController, createInformer, type Informer, type Runnable } from '../../runtime/index.js';
import { DEFAULT_RESYNC_MS, type ControllerGroupDeps } from '../wiring.js';
import { createZGuestPoolReconciler } from './reconciler.js';

export interface PoolControllersDeps extends ControllerGroupDeps {
  /** the operator's ZGuest informer: a pool guest's change wakes its pool */
  guests: Informer<ZGuest>;
  pollMs?: number;
}

/** A pool guest's key maps to its pool (same namespace, named by the pool label). */
export function mapGuestToPool(obj: Resource): { namespace?: string; name: string }[] {
  const pool = obj.metadata.labels?.[POOL_LABEL];
  return pool ? [{ namespace: obj.metadata.namespace, name: pool }] : [];
}

/**
 * The ZGuestPool informer and controller. With sharding a pool is labelled with its first host and
 * runs in the replica holding that host; it only writes ZGuest objects, which the replicas holding
 * their hosts drive.
 */
export function createPoolControllers(deps: PoolControllersDeps): Runnable[] {
  const pools = createInformer<ZGuestPool>({ store: deps.store, kind: 'ZGuestPool', resyncMs: deps.resyncMs ?? DEFAULT_RESYNC_MS, labelSelector: deps.labelSelector, log: deps.log });
  const controller = createController({
    name: 'zguestpool',
    reconciler: createZGuestPoolReconciler({ store: deps.store, events: deps.events, log: deps.log, pollMs: deps.pollMs }),
    informer: pools,
    concurrency: 2,
    watches: [{ informer: deps.guests, map: mapGuestToPool }],
    metrics: deps.metrics,
    log: deps.log,
  });
  return [pools, controller];
}
