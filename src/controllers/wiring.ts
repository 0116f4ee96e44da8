import type { Registry } from 'prom-client';
import { KINDS, type Resource } from '../api/index.js';
import type { Logger } from '../log.js';
import type { EventPredicate } from '../runtime/event-handlers.js';
import {
  createController, createInformer, type Controller, type EventRecorder, type Informer, type Reconciler, type Runnable, type RuntimeMetrics, type WatchSource,
} from '../runtime/index.js';
import type { LabelSelector, StateStore } from '../store/port.js';
import type { HostRegistry, HypervisorRegistry } from '../hypervisor/index.js';
import type { GuestDefaults } from './zguest/definition.js';
import type { FactBoard } from './kit/facts.js';

/** How often informers re-deliver every cached object (controller-runtime's default order of size). */
export const DEFAULT_RESYNC_MS = 10 * 60_000;

/**
 * How often each host is asked for the power state of all its guests (one batched call per host):
 * a guest logged off behind the operator's back shows in status within this period plus one reconcile.
 */
export const DEFAULT_DRIFT_MS = 15_000;

/** What every kind's controller is built from (cmd/operator.ts and the unassigned operator build it once). */
export interface ControllerGroupDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  metrics?: RuntimeMetrics;
  resyncMs?: number;
  /** the informers cache only these objects: one host's shard (`zvm.dev/host=<host>`); absent: every object */
  labelSelector?: LabelSelector;
  /** wraps every reconciler of the set (the unassigned controllers skip a resource whose host appeared) */
  guard?: (reconciler: Reconciler) => Reconciler;
  /** --capi: the Cluster API provider's controllers run too; watchFilter: only objects labelled cluster.x-k8s.io/watch-filter=<it> */
  capi?: CapiOptions;
  /** the operator of hosts; absent: the unassigned layout (no host to reach, only the rows marked `unassigned`) */
  hostLayout?: HostLayout;
}

export interface CapiOptions {
  watchFilter?: string;
}

/** What only an operator working hosts has: their connections, the process metrics and the tuning flags. */
export interface HostLayout {
  hosts: HostRegistry;
  registry: Registry;
  defaults?: GuestDefaults;
  /** --concurrency: the workers of the rows marked `tunable` */
  concurrency?: number;
  pollMs?: number;
  /** how often each host is asked for the power state of all its guests at once; default DEFAULT_DRIFT_MS, never slower than resyncMs */
  driftMs?: number;
  outageGraceMs?: number;
  orphanScanMs?: number;
  /** what the observers beside the controllers saw, for the reconcilers that write status (kit/facts.ts) */
  facts?: FactBoard;
}

/** What a row builds its controller from. */
export interface RowContext {
  deps: ControllerGroupDeps;
  /** the set's one informer of a kind (one ZHost, one ZGuest informer however many rows read it) */
  informer<T extends Resource>(kind: T['kind']): Informer<T>;
}

/** A row's controller: its reconciler and what wakes it, and what runs beside it. */
export interface RowParts {
  reconciler: Reconciler;
  /** which events of the row's own kind enqueue a reconcile; default every one */
  predicate?: EventPredicate;
  /** other kinds whose events wake it */
  watches?: WatchSource[];
  /** runnables that go with the controller (drift detector, gauges), given the controller to enqueue into */
  companions?: (controller: Controller) => Runnable[];
}

/** One kind's controller in the registry (registry.ts). */
export interface ControllerRow {
  kind: string;
  /** the controller's name in logs and in the zvm_controller_* metrics */
  name: string;
  /** reconciles at a time */
  concurrency: number;
  /** the operator's --concurrency sets it */
  tunable?: boolean;
  /** runs in the unassigned layout too (cmd/unassigned-operator.ts), with this concurrency; absent: only where hosts are held */
  unassigned?: { concurrency: number };
  /**
   * the kind has no host (api/kinds.ts host 'none'): no host's shard runs it; standalone, one replica
   * without Leases, and under sharding the replica holding the unassigned Lease do (it needs `unassigned`)
   */
  hostless?: true;
  build(ctx: RowContext): RowParts;
}

/** The controllers of one layout, their informers and companions, as runnables for a manager. */
export interface ControllerSet {
  /** informers first, then controllers, then companions */
  runnables: Runnable[];
  informer<T extends Resource>(kind: T['kind']): Informer<T>;
  controller(kind: string): Controller | undefined;
}

/** The row's reconciles at a time in the layout `deps` describes; undefined: the row does not run there. */
function concurrencyIn(row: ControllerRow, deps: ControllerGroupDeps): number | undefined {
  if (!deps.hostLayout) return row.unassigned?.concurrency;
  // a host's shard (its informers select the host's label) never sees a host-less object
  if (row.hostless && deps.labelSelector) return undefined;
  return (row.tunable ? deps.hostLayout.concurrency : undefined) ?? row.concurrency;
}

/** Builds the rows that belong in the layout `deps` describes. Pure wiring: nothing starts here. */
export function createControllerSet(rows: readonly ControllerRow[], deps: ControllerGroupDeps): ControllerSet {
  const informers = new Map<string, Informer>();
  const informer = <T extends Resource>(kind: T['kind']): Informer<T> => {
    let found = informers.get(kind);
    if (!found) {
      // host-less objects carry no host label: the unassigned layout's selection would leave every one out
      const labelSelector = KINDS[kind]?.host === 'none' ? undefined : deps.labelSelector;
      found = createInformer({ store: deps.store, kind, resyncMs: deps.resyncMs ?? DEFAULT_RESYNC_MS, labelSelector, log: deps.log });
      informers.set(kind, found);
    }
    return found as unknown as Informer<T>;
  };
  const controllers = new Map<string, Controller>();
  const companions: Runnable[] = [];
  for (const row of rows) {
    const concurrency = concurrencyIn(row, deps);
    if (concurrency === undefined) continue;
    const parts = row.build({ deps, informer });
    const controller = createController({
      name: row.name,
      reconciler: deps.guard ? deps.guard(parts.reconciler) : parts.reconciler,
      informer: informer(row.kind),
      predicate: parts.predicate,
      watches: parts.watches,
      concurrency,
      metrics: deps.metrics,
      log: deps.log,
    });
    controllers.set(row.kind, controller);
    companions.push(...(parts.companions?.(controller) ?? []));
  }
  return { runnables: [...informers.values(), ...controllers.values(), ...companions], informer, controller: (kind) => controllers.get(kind) };
}
