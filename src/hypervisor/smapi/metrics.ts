/** SMAPI call and connection-pool metrics, per z/VM host, on an injected prom-client Registry. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registerOnce } from '../../metrics.js';

/** What a pool reports; the SMAPI client's semaphore. */
export interface PoolGauge {
  readonly active: number;
  readonly waiting: number;
}

export interface SmapiMetrics {
  observe(fn: string, rc: number, seconds: number): void;
  /** the host's pool no longer reports (client closed) */
  close(): void;
}

/** Return-code class of a finished call: bounded label values whatever rc the host sends. */
export type SmapiOutcome = 'success' | 'warning' | 'error' | 'transport_error';

export function smapiOutcome(rc: number): SmapiOutcome {
  if (rc === 0) return 'success';
  if (rc < 0) return 'transport_error'; // no SMAPI answer: refused, timed out, closed (TRANSPORT_RC)
  return rc === 4 ? 'warning' : 'error';
}

/** Pools being reported, per registry: one gauge collects all hosts of a process. */
const pools = new WeakMap<Registry, Map<string, PoolGauge>>();

function poolsOf(registry: Registry): Map<string, PoolGauge> {
  let m = pools.get(registry);
  if (!m) pools.set(registry, (m = new Map()));
  return m;
}

/**
 * Registers (once per registry) and returns the SMAPI families:
 * zvm_smapi_calls_total{host,function,outcome}: every finished call (after retries, recovery and
 * async polling); zvm_smapi_call_duration_seconds{host,function}: its wall time;
 * zvm_smapi_connections_in_use / _waiting{host}: the connection pool.
 */
export function registerSmapiMetrics(registry: Registry) {
  const hostPools = poolsOf(registry);
  const poolGauge = (name: string, help: string, read: (p: PoolGauge) => number) => registerOnce(registry, name, (registers) => new Gauge({
    name, help, labelNames: ['host'] as const, registers,
    collect() {
      this.reset();
      for (const [host, p] of hostPools) this.set({ host }, read(p));
    },
  }));
  return {
    calls: registerOnce(registry, 'zvm_smapi_calls_total', (registers) => new Counter({
      name: 'zvm_smapi_calls_total', help: 'SMAPI calls by z/VM host, function and outcome (return-code class: success, warning, error, transport_error)',
      labelNames: ['host', 'function', 'outcome'] as const, registers,
    })),
    duration: registerOnce(registry, 'zvm_smapi_call_duration_seconds', (registers) => new Histogram({
      name: 'zvm_smapi_call_duration_seconds', help: 'SMAPI call duration by z/VM host and function, including retries, recovery and asynchronous completion',
      labelNames: ['host', 'function'] as const, registers, buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 240],
    })),
    inUse: poolGauge('zvm_smapi_connections_in_use', 'SMAPI connections open at once per z/VM host (at most the ZHost\'s spec.smapi.concurrency)', (p) => p.active),
    waiting: poolGauge('zvm_smapi_connections_waiting', 'SMAPI calls waiting for a free connection per z/VM host', (p) => p.waiting),
  };
}

/** The metrics of one host's SMAPI client; none without a registry. */
export function createSmapiMetrics(host: string, pool: PoolGauge, registry?: Registry): SmapiMetrics {
  if (!registry) return { observe: () => undefined, close: () => undefined };
  const { calls, duration } = registerSmapiMetrics(registry);
  const hostPools = poolsOf(registry);
  hostPools.set(host, pool);
  return {
    observe(fn, rc, seconds) {
      calls.inc({ host, function: fn, outcome: smapiOutcome(rc) });
      duration.observe({ host, function: fn }, seconds);
    },
    close() {
      if (hostPools.get(host) === pool) hostPools.delete(host);
    },
  };
}
