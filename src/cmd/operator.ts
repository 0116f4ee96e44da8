import type { Registry } from 'prom-client';
import type { ZGuest, ZGuestAction, ZHost } from '../api/index.js';
import {
  createDriftMetrics, createImageControllers, createObservedCache, createReconcilers, createVolumeControllers, createVswitchAndHostControllers,
  createOrphanSweeper, createPoolControllers, createZGuestActionReconciler, guestMetricsRunnable, createZGuestDriftDetector, DEFAULT_DRIFT_MS, DEFAULT_RESYNC_MS, mapHostToGuests, mapUseridRivals, claimIndexValue,
  zguestClaimPredicate, zguestEventPredicate, type GuestDefaults,
} from '../controllers/index.js';
import type { HostRegistry } from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import { createController, createInformer, createMetrics, type EventRecorder, type Informer, type Runnable, type RuntimeMetrics } from '../runtime/index.js';
import type { LabelSelector, StateStore } from '../store/port.js';
import { withCachedReads } from '../runtime/cached-reads.js';
import { createInformerIndex } from '../runtime/informer-index.js';

export interface OperatorDeps {
  store: StateStore;
  hosts: HostRegistry;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  defaults?: GuestDefaults;
  concurrency?: number;
  resyncMs?: number;
  /** how often each host is asked for the power state of all its guests at once; default DEFAULT_DRIFT_MS, never slower than resyncMs */
  driftMs?: number;
  /** how long a host's SMAPI may give no answer before its guests say Unknown; default DEFAULT_OUTAGE_GRACE_MS */
  outageGraceMs?: number;
  /** the orphan sweeper lists each host's directory at most this often; default 5 minutes */
  orphanScanMs?: number;
  pollMs?: number;
  /** one host's shard: every informer caches only the objects labelled for it (see runtime/sharding) */
  labelSelector?: LabelSelector;
  /** shared by the per-host operators of a sharded replica (a registry takes each metric once) */
  metrics?: RuntimeMetrics;
}

export interface Operator {
  runnables: Runnable[];
  guests: Informer<ZGuest>;
  hasSynced(): boolean;
  /** A host became usable: wake the guests placed on it (e.g. those waiting with HostNotFound). */
  wakeHost(name: string): void;
}

/** The controllers and the informers that feed them, as runnables for a manager. */
export function createOperator(deps: OperatorDeps): Operator {
  const metrics = deps.metrics ?? createMetrics(deps.registry);
  const resyncMs = deps.resyncMs ?? DEFAULT_RESYNC_MS;
  const group = { store: deps.store, hypervisors: deps.hosts, events: deps.events, log: deps.log, metrics, resyncMs, labelSelector: deps.labelSelector };
  // one ZHost informer: the host controller's, and the ZGuest reconciler's reads of a host's changePolicy
  const zhosts = createInformer<ZHost>({ store: deps.store, kind: 'ZHost', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  const network = createVswitchAndHostControllers({ ...group, hosts: zhosts });
  const images = createImageControllers(group);
  const volumes = createVolumeControllers(group);
  const guests = createInformer<ZGuest>({ store: deps.store, kind: 'ZGuest', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  // rival claims of a userid: an index, not a scan of every guest per reconcile and per add (issue 23)
  const claimants = createInformerIndex(guests, (g) => [claimIndexValue(g)]);
  const rivalsOf = (g: ZGuest): ZGuest[] => claimants.lookup(claimIndexValue(g));
  // what the controller last saw of each guest: shared by the reconciler and the drift detector
  const observed = createObservedCache();
  const driftMetrics = createDriftMetrics(deps.registry);
  const [reconciler] = createReconcilers({
    // a reconcile starts from the informer's copy, not a GET (src/runtime/cached-reads.ts)
    store: withCachedReads(withCachedReads(deps.store, 'ZGuest', guests), 'ZHost', zhosts),
    hypervisors: deps.hosts,
    events: deps.events,
    log: deps.log,
    defaults: deps.defaults,
    pollMs: deps.pollMs,
    listGuests: rivalsOf,
    observed,
    driftMetrics,
  });
  const controller = createController({
    name: 'zguest',
    reconciler,
    informer: guests,
    predicate: zguestEventPredicate,
    concurrency: deps.concurrency ?? 8,
    watches: [{ informer: guests, map: mapUseridRivals(rivalsOf), predicate: zguestClaimPredicate }],
    metrics,
    log: deps.log,
  });
  // one-off guest operations (live migration): run once, then garbage-collected after their TTL
  const actions = createInformer<ZGuestAction>({ store: deps.store, kind: 'ZGuestAction', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  const actionController = createController({
    name: 'zguestaction',
    reconciler: createZGuestActionReconciler({ store: deps.store, hypervisors: deps.hosts, events: deps.events, log: deps.log }),
    informer: actions,
    concurrency: 4,
    metrics,
    log: deps.log,
  });
  const wakeHost = (name: string): void => {
    for (const key of mapHostToGuests(() => guests.list())({ metadata: { name } } as ZHost)) controller.enqueue(key);
  };
  const orphans = createOrphanSweeper({
    store: deps.store, hosts: deps.hosts, guests, events: deps.events, registry: deps.registry, log: deps.log, scanIntervalMs: deps.orphanScanMs,
  });
  const drift = createZGuestDriftDetector({
    hosts: deps.hosts, guests, enqueue: (key) => controller.enqueue(key), observed, log: deps.log,
    periodMs: deps.driftMs ?? Math.min(DEFAULT_DRIFT_MS, resyncMs),
    outageGraceMs: deps.outageGraceMs,
    report: { store: deps.store, events: deps.events, metrics: driftMetrics },
    onLook: (host, look, signal) => orphans.observe(host, look, signal),
  });
  const guestMetrics = guestMetricsRunnable(deps.registry, () => guests.list());
  // pools write ZGuests only; with sharding a pool runs in the replica holding its first host
  const pools = createPoolControllers({ ...group, guests, pollMs: deps.pollMs });
  return { runnables: [actions, actionController, guests, controller, drift, guestMetrics, ...pools, ...volumes, ...images, ...network], guests, hasSynced: () => guests.hasSynced(), wakeHost };
}
