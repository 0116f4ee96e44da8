import type { Registry } from 'prom-client';
import { claimWithLabel, type CapiOptions, type GuestDefaults } from '../controllers/index.js';
import type { HostRegistry } from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import { createMetrics, type EventRecorder, type Runnable, type RuntimeMetrics } from '../runtime/index.js';
import { createHostLabeler, HOST_LABEL, type ShardCoordinator, type ShardMetrics } from '../runtime/sharding/index.js';
import type { StateStore } from '../store/port.js';
import type { KubeHosts } from './kube-hosts.js';
import { createOperator, type Operator } from './operator.js';

/**
 * The controllers of a sharded replica: one operator per held host, whose informers watch only that
 * host's resources (label `zvm.dev/host`), started when the coordinator acquires the host and stopped
 * when it loses or releases it. The host's connection is opened only while the host is held.
 */
export interface ShardedOperatorDeps {
  store: StateStore;
  hosts: KubeHosts;
  events: EventRecorder;
  registry: Registry;
  shardMetrics: ShardMetrics;
  log: Logger;
  defaults?: GuestDefaults;
  concurrency?: number;
  pollMs?: number;
  resyncMs?: number;
  driftMs?: number;
  outageGraceMs?: number;
  capi?: CapiOptions;
}

export interface ShardedOperator {
  /** the coordinator's work function: runs the host's controllers until the signal aborts */
  runHost(host: string, signal: AbortSignal): Promise<void>;
  /** runs on every replica: puts the host label on new resources */
  labeler: Runnable;
  /** every running host operator has synced its informers */
  hasSynced(): boolean;
  wakeHost(name: string): void;
  /** the runtime metrics of controllers working for `host` (one set per registry, counted per host) */
  metricsFor(host: string): RuntimeMetrics;
}

/**
 * What one host's operator sees of the replica's hosts: only its own in hosts(), which the drift detector
 * and the orphan sweeper walk. Given every held host, each host's operator looked at all of them with a
 * cache holding its own host's guests only: the other hosts' guests were "orphans" (Warning Events, a
 * wrong ZHost status.orphanedGuests, a mark read per guest), and each host got one drift look per
 * host the replica held (12×400 on one replica: about 22 SMAPI calls per guest more on every host).
 */
export function oneHostOf(all: HostRegistry, host: string): HostRegistry {
  return {
    forHost: (name) => all.forHost(name),
    register: (name, hypervisor) => all.register(name, hypervisor),
    hosts: () => all.hosts().filter((h) => h === host),
    // the replica's registry outlives the host's operator and is closed by its owner
    close: async () => undefined,
  };
}

export function createShardedOperator(deps: ShardedOperatorDeps, coordinator: () => ShardCoordinator | undefined): ShardedOperator {
  const runtimeMetrics = createMetrics(deps.registry);
  const running = new Map<string, Operator>();
  const metricsFor = (host: string): RuntimeMetrics => deps.shardMetrics.forHost(host, runtimeMetrics);

  async function runHost(host: string, signal: AbortSignal): Promise<void> {
    const log = deps.log.child({ host });
    const operator = createOperator({
      store: deps.store, hosts: oneHostOf(deps.hosts, host), events: deps.events, registry: deps.registry, log,
      defaults: deps.defaults, concurrency: deps.concurrency, pollMs: deps.pollMs, resyncMs: deps.resyncMs, driftMs: deps.driftMs, outageGraceMs: deps.outageGraceMs,
      labelSelector: { [HOST_LABEL]: host }, metrics: deps.shardMetrics.forHost(host, runtimeMetrics), capi: deps.capi,
    });
    running.set(host, operator);
    deps.hosts.resync(host);
    // `kubectl get zhosts` shows the holder: a fact the host's ZHost reconciler writes
    const identity = coordinator()?.identity;
    if (identity) operator.facts.recordHost(host, { heldBy: identity });
    log.info('host controllers starting');
    try {
      await Promise.all(operator.runnables.map((r) => r.start(signal)));
    } finally {
      if (running.get(host) === operator) running.delete(host);
      deps.hosts.resync(host);
      log.info('host controllers stopped');
    }
  }

  return {
    runHost,
    // the holder labels its host's new objects, any replica those of a host without a ZHost (the unassigned controllers' part)
    // and a new guest's claim (finalizer, owner uid) with its label, where the guest's controller would write it (one write, not two)
    labeler: createHostLabeler({
      store: deps.store, log: deps.log, capi: deps.capi !== undefined,
      labelsAtOnce: (host) => !deps.hosts.informer.get({ name: host }) || (coordinator()?.holds(host) ?? true),
      claimOf: (obj, host) => claimWithLabel(obj, deps.hosts.forHost(host) !== undefined),
    }),
    hasSynced: () => [...running.values()].every((op) => op.hasSynced()),
    wakeHost(name) {
      if (coordinator()?.holds(name)) running.get(name)?.wakeHost(name);
    },
    metricsFor,
  };
}
