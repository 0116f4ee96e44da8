import { Counter, Gauge, type Registry } from 'prom-client';
import { registerOnce } from '../../metrics.js';
import { masterStatusGauge } from '../leader-election.js';
import type { ControllerMetrics, RuntimeMetrics } from '../metrics.js';

/** What the sharding reports: hosts held by this replica, Lease transitions, reconciles per host. */
export interface ShardMetrics {
  held(count: number): void;
  /** what this replica's last round saw: live replicas, the fair share, the ZHosts to hold */
  replicas(live: number, share: number, hosts: number): void;
  transition(host: string, event: 'acquired' | 'released' | 'lost'): void;
  /** the runtime metrics of one host's controllers, counting their reconciles per host as well */
  forHost(host: string, base: RuntimeMetrics): RuntimeMetrics;
}

export function createShardMetrics(registry: Registry): ShardMetrics {
  const held = registerOnce(registry, 'zvm_shard_hosts_held', (registers) => new Gauge({ name: 'zvm_shard_hosts_held', help: 'Number of z/VM hosts whose Lease this replica holds', registers }));
  const live = registerOnce(registry, 'zvm_shard_live_replicas', (registers) => new Gauge({ name: 'zvm_shard_live_replicas', help: 'Number of controller replicas with a live heartbeat Lease, as this replica sees them', registers }));
  const hosts = registerOnce(registry, 'zvm_shard_hosts', (registers) => new Gauge({ name: 'zvm_shard_hosts', help: 'Number of ZHosts to be held by some replica, as this replica sees them', registers }));
  const share = registerOnce(registry, 'zvm_shard_fair_share', (registers) => new Gauge({ name: 'zvm_shard_fair_share', help: 'Hosts per replica: ceil(hosts / live replicas)', registers }));
  const transitions = registerOnce(registry, 'zvm_shard_lease_transitions_total', (registers) => new Counter({ name: 'zvm_shard_lease_transitions_total', help: 'Host Lease transitions of this replica', labelNames: ['host', 'event'] as const, registers }));
  const master = masterStatusGauge(registry);
  const reconciles = registerOnce(registry, 'zvm_host_reconcile_total', (registers) => new Counter({ name: 'zvm_host_reconcile_total', help: 'Reconciles per z/VM host and controller', labelNames: ['host', 'controller', 'result'] as const, registers }));
  return {
    held: (count) => held.set(count),
    replicas(count, fair, hostCount) {
      live.set(count);
      share.set(fair);
      hosts.set(hostCount);
    },
    transition(host, event) {
      transitions.inc({ host, event });
      master.set({ name: host }, event === 'acquired' ? 1 : 0);
    },
    forHost(host, base) {
      return {
        queue: (name) => base.queue(name),
        controller(name): ControllerMetrics {
          const inner = base.controller(name);
          return {
            ...inner,
            reconciled(outcome, seconds) {
              reconciles.inc({ host, controller: name, result: outcome });
              inner.reconciled(outcome, seconds);
            },
          };
        },
      };
    },
  };
}
