/**
 * Which process exports which metrics: every process builds its registry here, with all of its
 * families registered at start (a family is on /metrics before its first sample), and
 * docs/metrics.md is generated from the same list (`npm run docs:metrics`).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createDriftMetrics, orphanGauge, registerGuestGauges } from '../controllers/index.js';
import { registerSmapiMetrics, registerTransferMetrics } from '../hypervisor/index.js';
import { registerRestMetrics } from '../rest/plugins/metrics.js';
import { registerEventMetrics } from '../runtime/event-metrics.js';
import { createMetrics } from '../runtime/metrics.js';
import { createShardMetrics } from '../runtime/sharding/metrics.js';

export type ProcessName = 'controller' | 'rest' | 'standalone';

export interface MetricArea {
  title: string;
  /** where the definitions live */
  source: string;
  processes: ProcessName[];
  /** a note for the reference (when a family has samples) */
  note?: string;
  register(registry: Registry): void;
}

/**
 * How often the event-loop delay histogram samples. Each sample wakes the process: at prom-client's
 * 10 ms an idle controller woke 100 times a second, about half of its idle CPU (issue 38, density gate).
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export const METRIC_AREAS: MetricArea[] = [
  {
    title: 'SMAPI', source: 'src/hypervisor/smapi/metrics.ts', processes: ['controller', 'rest', 'standalone'],
    note: 'Every call to a z/VM host\'s SMAPI server (the REST sidecar makes the live reads). `host` is the ZHost name.',
    register: registerSmapiMetrics,
  },
  {
    title: 'Image transfers', source: 'src/hypervisor/mgmt/metrics.ts', processes: ['controller', 'rest', 'standalone'],
    note: 'Bytes the operator streams through the management guest: imports, exports (the REST sidecar runs those it is asked for) and deploys\' transport files.',
    register: registerTransferMetrics,
  },
  {
    title: 'REST', source: 'src/rest/plugins/metrics.ts', processes: ['rest', 'standalone'],
    note: '`route` is the route template (`/guests/:userid`), `unmatched` when no route matched. The sidecar serves them on `--metrics-bind-address` (the chart: port `rest-metrics`), standalone on its admin port.',
    register: registerRestMetrics,
  },
  {
    title: 'Controllers and work queues', source: 'src/runtime/metrics.ts', processes: ['controller', 'standalone'],
    note: 'controller-runtime\'s names and labels, so that existing Kubernetes controller dashboards work unchanged.',
    register: createMetrics,
  },
  {
    title: 'Guests, drift and orphans', source: 'src/controllers/metrics.ts', processes: ['controller', 'standalone'],
    note: 'A sharded replica counts the guests of the hosts it holds: sum over replicas for the fleet.',
    register(registry) {
      registerGuestGauges(registry);
      createDriftMetrics(registry);
      orphanGauge(registry);
    },
  },
  {
    title: 'Sharding', source: 'src/runtime/sharding/metrics.ts', processes: ['controller'],
    note: 'Samples with leader election on (the chart\'s default). `leader_election_master_status{name}` has one series per ZHost Lease this replica took part in (`name` is the ZHost) and one for the Lease of the unassigned controllers (`name` is `<namespace>/<leader-election-id>-unassigned`).',
    register: createShardMetrics,
  },
  {
    title: 'Events', source: 'src/runtime/kube-event-recorder.ts', processes: ['controller'],
    note: 'core/v1 Events (`kubectl describe`) are queued and written by a few concurrent writers; a full queue (1000 distinct events) drops new ones. A rising count means Events are lost: the apiserver is too slow or unreachable for the rate of changes.',
    register: registerEventMetrics,
  },
  {
    title: 'Process and Node.js runtime', source: 'prom-client collectDefaultMetrics', processes: ['controller', 'rest', 'standalone'],
    note: `The \`nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds\` gauges come from a delay histogram sampled every ${EVENT_LOOP_SAMPLE_MS} ms (prom-client's default is 10 ms): a stall of ${EVENT_LOOP_SAMPLE_MS} ms or more is always recorded, a shorter one in proportion to its length. \`nodejs_eventloop_lag_seconds\` is measured at each scrape.`,
    register: (registry) => collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS }),
  },
];

/** The registry of one process, every family of its areas registered. */
export function createProcessRegistry(process: ProcessName): Registry {
  const registry = new Registry();
  for (const area of METRIC_AREAS) if (area.processes.includes(process)) area.register(registry);
  return registry;
}
