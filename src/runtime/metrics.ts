import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registerOnce } from '../metrics.js';

/**
 * Prometheus metrics with controller-runtime's names (docs/kubernetes.md §2), so that
 * existing dashboards and alerts work unchanged. Always registered on the registry passed in: tests
 * and embedders create several, and the global default registry would collide.
 */

export type ReconcileOutcome = 'success' | 'error' | 'requeue_after';

/** What a work queue reports; every hook is cheap and synchronous. */
export interface WorkQueueMetrics {
  depth(n: number): void;
  added(): void;
  queueDuration(seconds: number): void;
  workDuration(seconds: number): void;
  retried(): void;
}

/** What a controller reports about its reconciles. */
export interface ControllerMetrics {
  reconciled(outcome: ReconcileOutcome, seconds: number): void;
  terminalError(): void;
  activeWorkers(delta: number): void;
  maxConcurrent(n: number): void;
}

export interface RuntimeMetrics {
  queue(name: string): WorkQueueMetrics;
  controller(name: string): ControllerMetrics;
}

// Buckets as controller-runtime uses them: reconciles span milliseconds to a minute.
const RECONCILE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60];
// Queue latencies: 1 µs to 1000 s in powers of ten.
const QUEUE_BUCKETS = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];

export function createMetrics(registry: Registry): RuntimeMetrics {
  const reconcileTotal = registerOnce(registry, 'controller_runtime_reconcile_total', (registers) => new Counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'] as const, registers }));
  const reconcileErrors = registerOnce(registry, 'controller_runtime_reconcile_errors_total', (registers) => new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Total number of reconciliation errors per controller', labelNames: ['controller'] as const, registers }));
  const terminalErrors = registerOnce(registry, 'controller_runtime_terminal_reconcile_errors_total', (registers) => new Counter({ name: 'controller_runtime_terminal_reconcile_errors_total', help: 'Total number of terminal reconciliation errors per controller', labelNames: ['controller'] as const, registers }));
  const reconcileTime = registerOnce(registry, 'controller_runtime_reconcile_time_seconds', (registers) => new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Length of time per reconciliation per controller', labelNames: ['controller'] as const, buckets: RECONCILE_BUCKETS, registers }));
  const activeWorkers = registerOnce(registry, 'controller_runtime_active_workers', (registers) => new Gauge({ name: 'controller_runtime_active_workers', help: 'Number of currently used workers per controller', labelNames: ['controller'] as const, registers }));
  const maxConcurrent = registerOnce(registry, 'controller_runtime_max_concurrent_reconciles', (registers) => new Gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Maximum number of concurrent reconciles per controller', labelNames: ['controller'] as const, registers }));

  const depth = registerOnce(registry, 'workqueue_depth', (registers) => new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'] as const, registers }));
  const adds = registerOnce(registry, 'workqueue_adds_total', (registers) => new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'] as const, registers }));
  const queueDuration = registerOnce(registry, 'workqueue_queue_duration_seconds', (registers) => new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested', labelNames: ['name'] as const, buckets: QUEUE_BUCKETS, registers }));
  const workDuration = registerOnce(registry, 'workqueue_work_duration_seconds', (registers) => new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes', labelNames: ['name'] as const, buckets: QUEUE_BUCKETS, registers }));
  const retries = registerOnce(registry, 'workqueue_retries_total', (registers) => new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'] as const, registers }));

  return {
    queue(name) {
      const labels = { name };
      return {
        depth: (n) => depth.set(labels, n),
        added: () => adds.inc(labels),
        queueDuration: (s) => queueDuration.observe(labels, s),
        workDuration: (s) => workDuration.observe(labels, s),
        retried: () => retries.inc(labels),
      };
    },
    controller(name) {
      const labels = { controller: name };
      // Pre-create the outcome series at zero so that rate() queries see them from the start.
      for (const result of ['success', 'error', 'requeue_after'] as const) reconcileTotal.inc({ controller: name, result }, 0);
      reconcileErrors.inc(labels, 0);
      terminalErrors.inc(labels, 0);
      return {
        reconciled(outcome, seconds) {
          reconcileTotal.inc({ controller: name, result: outcome });
          if (outcome === 'error') reconcileErrors.inc(labels);
          reconcileTime.observe(labels, seconds);
        },
        terminalError: () => terminalErrors.inc(labels),
        activeWorkers: (delta) => activeWorkers.inc(labels, delta),
        maxConcurrent: (n) => maxConcurrent.set(labels, n),
      };
    },
  };
}

/** For components built without metrics (unit tests, library defaults). */
export const noopQueueMetrics: WorkQueueMetrics = {
  depth: () => undefined,
  added: () => undefined,
  queueDuration: () => undefined,
  workDuration: () => undefined,
  retried: () => undefined,
};

export const noopControllerMetrics: ControllerMetrics = {
  reconciled: () => undefined,
  terminalError: () => undefined,
  activeWorkers: () => undefined,
  maxConcurrent: () => undefined,
};
