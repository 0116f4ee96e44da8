import type { Resource } from '../../api/index.js';
import { done, type Reconciler } from '../../runtime/result.js';
import type { ControllerGroupDeps } from '../wiring.js';

/** Cluster API's --watch-filter: a controller started with a value reconciles only objects carrying this label with that value. */
export const WATCH_FILTER_LABEL = 'cluster.x-k8s.io/watch-filter';

export function passesWatchFilter(obj: Resource, watchFilter: string | undefined): boolean {
  return !watchFilter || obj.metadata.labels?.[WATCH_FILTER_LABEL] === watchFilter;
}

/** Leaves objects outside the watch filter alone (another manager of a sharded management cluster owns them). */
export function withWatchFilter(inner: Reconciler, deps: Pick<ControllerGroupDeps, 'capi' | 'store'>): Reconciler {
  const filter = deps.capi?.watchFilter;
  if (!filter) return inner;
  return {
    kind: inner.kind,
    async reconcile(key, signal) {
      const obj = await deps.store.get(inner.kind, key);
      return obj && passesWatchFilter(obj, filter) ? inner.reconcile(key, signal) : done();
    },
  };
}
