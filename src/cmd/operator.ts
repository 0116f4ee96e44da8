import type { Registry } from 'prom-client';
import type { ZGuest, ZHost } from '../api/index.js';
import { controllerRows, createControllerSet, createFactBoard, mapHostToGuests, type CapiOptions, type FactBoard, type GuestDefaults } from '../controllers/index.js';
import type { HostRegistry } from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import { createMetrics, type EventRecorder, type Informer, type Runnable, type RuntimeMetrics } from '../runtime/index.js';
import type { LabelSelector, StateStore } from '../store/port.js';

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
  /** what observers beside the controllers record for the reconcilers that write status; default a new one */
  facts?: FactBoard;
  /** --capi: the Cluster API provider's controllers too */
  capi?: CapiOptions;
}

export interface Operator {
  runnables: Runnable[];
  guests: Informer<ZGuest>;
  hasSynced(): boolean;
  /** where the shard coordinator records the holder of a host (kit/facts.ts) */
  facts: FactBoard;
  /** A host became usable: wake the guests placed on it (e.g. those waiting with HostNotFound). */
  wakeHost(name: string): void;
}

/** Every registered controller (controllers/registry.ts) and the informers that feed them, as runnables for a manager. */
export function createOperator(deps: OperatorDeps): Operator {
  const { store, hosts, events, log, registry, resyncMs, labelSelector } = deps;
  const facts = deps.facts ?? createFactBoard();
  const set = createControllerSet(controllerRows(deps.capi !== undefined), {
    store, hypervisors: hosts, events, log, resyncMs, labelSelector, metrics: deps.metrics ?? createMetrics(registry), capi: deps.capi,
    hostLayout: {
      hosts, registry, defaults: deps.defaults, concurrency: deps.concurrency, pollMs: deps.pollMs,
      driftMs: deps.driftMs, outageGraceMs: deps.outageGraceMs, orphanScanMs: deps.orphanScanMs, facts,
    },
  });
  const guests = set.informer<ZGuest>('ZGuest');
  const wakeHost = (name: string): void => {
    for (const key of mapHostToGuests(() => guests.list())({ metadata: { name } } as ZHost)) set.controller('ZGuest')?.enqueue(key);
  };
  return { runnables: set.runnables, guests, hasSynced: () => guests.hasSynced(), facts, wakeHost };
}
