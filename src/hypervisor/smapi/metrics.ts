/** Per-function SMAPI call metrics on an injected prom-client Registry. */
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export interface SmapiMetrics {
  observe(fn: string, rc: number, seconds: number, failed: boolean): void;
}

function reuse<T>(registry: Registry, name: string, make: () => T): T {
  // Several clients (one per host) may share one registry: register each metric once.
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/**
 * smapi_calls_total{fn,rc}: every finished call with its final rc (negative for transport
 * failures); smapi_call_errors_total{fn}: calls that did not end with rc 0;
 * smapi_call_duration_seconds{fn}: wall time including retries, recovery and async polling.
 */
export function createSmapiMetrics(registry?: Registry): SmapiMetrics {
  if (!registry) return { observe: () => undefined };
  const registers = [registry];
  const calls = reuse(registry, 'smapi_calls_total', () => new Counter({
    name: 'smapi_calls_total', help: 'SMAPI calls by function and final return code', labelNames: ['fn', 'rc'], registers,
  }));
  const errors = reuse(registry, 'smapi_call_errors_total', () => new Counter({
    name: 'smapi_call_errors_total', help: 'SMAPI calls that did not end with rc 0', labelNames: ['fn'], registers,
  }));
  const duration = reuse(registry, 'smapi_call_duration_seconds', () => new Histogram({
    name: 'smapi_call_duration_seconds', help: 'SMAPI call duration including retries', labelNames: ['fn'], registers,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 240],
  }));
  return {
    observe(fn, rc, seconds, failed) {
      calls.inc({ fn, rc: String(rc) });
      if (failed) errors.inc({ fn });
      duration.observe({ fn }, seconds);
    },
  };
}
