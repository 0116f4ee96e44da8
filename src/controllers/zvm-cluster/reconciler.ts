/**
 * The ZVMCluster controller (Cluster API InfraCluster): nothing to make on a host, so no finalizer; it
 * reports the failure domains (the ZHosts) and provisioned, and passes the control-plane endpoint through
 * (Cluster API copies spec.controlPlaneEndpoint to the Cluster). Paused: only the Paused condition moves.
 */
import { CAPI_GROUP, type ZHost, type ZVMCluster } from '../../api/index.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import { isPaused, writeStatusIfChanged, type Cluster } from '../kit/index.js';
import { computeClusterStatus } from './status.js';

export interface ZVMClusterReconcilerDeps {
  store: StateStore;
  clock?: () => Date;
  /** how soon to look again while a host is missing; default 5 s */
  pollMs?: number;
}

export function createZVMClusterReconciler(deps: ZVMClusterReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  return {
    kind: 'ZVMCluster',
    async reconcile(key: ObjectKey): Promise<Result> {
      const zc = await deps.store.get<ZVMCluster>('ZVMCluster', key);
      if (!zc || zc.metadata.deletionTimestamp) return done();
      const owner = zc.metadata.ownerReferences?.find((r) => r.kind === 'Cluster' && r.apiVersion.startsWith(`${CAPI_GROUP}/`));
      const cluster = owner ? await deps.store.get<Cluster>('Cluster', { namespace: zc.metadata.namespace, name: owner.name }) : undefined;
      const selector = zc.spec.hostSelector?.matchLabels;
      const zhosts = (await deps.store.list<ZHost>('ZHost', selector ? { labelSelector: selector } : {})).items;
      const paused = isPaused(zc, cluster);
      const status = computeClusterStatus({ zc, zhosts, paused }, clock());
      await writeStatusIfChanged(deps.store, zc, status);
      // ZHosts come and go: look again now and then (a missing one is looked for sooner)
      return requeueAfter(status.failureDomains?.length === (zc.spec.hosts?.length ?? status.failureDomains?.length) ? 60_000 : deps.pollMs ?? 5000);
    },
  };
}
