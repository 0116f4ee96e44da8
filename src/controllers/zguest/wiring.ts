import type { ZGuest, ZHost } from '../../api/index.js';
import { withCachedReads } from '../../runtime/cached-reads.js';
import type { Controller, Runnable } from '../../runtime/index.js';
import { createInformerIndex } from '../../runtime/informer-index.js';
import { createDriftMetrics, guestMetricsRunnable } from '../metrics.js';
import { DEFAULT_DRIFT_MS, DEFAULT_RESYNC_MS, type RowContext, type RowParts } from '../wiring.js';
import { createZGuestDriftDetector } from './drift.js';
import { createObservedCache } from './observed-cache.js';
import { createOrphanSweeper } from './orphan-sweeper.js';
import { claimIndexValue } from './ownership.js';
import { zguestClaimPredicate, zguestEventPredicate } from './predicates.js';
import { createZGuestReconciler } from './reconciler.js';
import { mapUseridRivals } from './watches.js';

/**
 * The ZGuest controller. Where hosts are held: reads from the informers, rival claims from an index,
 * and beside it the drift detector (with the orphan sweeper riding on its looks) and the guest gauges.
 * In the unassigned layout: the bare reconciler on every event (a guest settled on its host is not
 * settled once that host is gone).
 */
export function zguestParts({ deps, informer }: RowContext): RowParts {
  const layout = deps.hostLayout;
  if (!layout) return { reconciler: createZGuestReconciler(deps) };
  const guests = informer<ZGuest>('ZGuest');
  // rival claims of a userid: an index, not a scan of every guest per reconcile and per add (issue 23)
  const claimants = createInformerIndex(guests, (g) => [claimIndexValue(g)]);
  const rivalsOf = (g: ZGuest): ZGuest[] => claimants.lookup(claimIndexValue(g));
  // what the controller last saw of each guest: shared by the reconciler and the drift detector
  const observed = createObservedCache();
  const driftMetrics = createDriftMetrics(layout.registry);
  const reconciler = createZGuestReconciler({
    // a reconcile starts from the informer's copy, not a GET (src/runtime/cached-reads.ts)
    store: withCachedReads(withCachedReads(deps.store, 'ZGuest', guests), 'ZHost', informer<ZHost>('ZHost')),
    hypervisors: deps.hypervisors,
    events: deps.events,
    log: deps.log,
    defaults: layout.defaults,
    pollMs: layout.pollMs,
    listGuests: rivalsOf,
    observed,
    driftMetrics,
    facts: layout.facts,
  });
  const companions = (controller: Controller): Runnable[] => {
    const orphans = createOrphanSweeper({
      store: deps.store, hosts: layout.hosts, guests, events: deps.events, registry: layout.registry, log: deps.log, scanIntervalMs: layout.orphanScanMs, facts: layout.facts,
    });
    const drift = createZGuestDriftDetector({
      hosts: layout.hosts, guests, enqueue: (key) => controller.enqueue(key), observed, log: deps.log,
      periodMs: layout.driftMs ?? Math.min(DEFAULT_DRIFT_MS, deps.resyncMs ?? DEFAULT_RESYNC_MS),
      outageGraceMs: layout.outageGraceMs,
      report: { facts: layout.facts, events: deps.events, metrics: driftMetrics },
      onLook: (host, look, signal) => orphans.observe(host, look, signal),
    });
    return [drift, guestMetricsRunnable(layout.registry, () => guests.list())];
  };
  return {
    reconciler,
    predicate: zguestEventPredicate,
    watches: [{ informer: guests, map: mapUseridRivals(rivalsOf), predicate: zguestClaimPredicate }],
    companions,
  };
}
