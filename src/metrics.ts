/**
 * Prometheus plumbing shared by every process: each builds one Registry (never prom-client's global
 * one: tests and embedders run several processes' parts in one Node.js) with the process and Node.js
 * runtime defaults, and each area registers its own metrics on it (docs/metrics.md lists them all).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** A registry with prom-client's process_* and nodejs_* default metrics. */
export function createProcessRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The metric of that name when the registry has it already, else a new one: several parts of one
 * process (one SMAPI client or host operator per host) share a registry, which takes a name once.
 */
export function registerOnce<T>(registry: Registry, name: string, make: (registers: Registry[]) => T): T {
  return (registry.getSingleMetric(name) as unknown as T | undefined) ?? make([registry]);
}
