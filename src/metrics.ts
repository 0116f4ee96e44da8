/**
 * Prometheus plumbing shared by every area: each process builds one Registry (never prom-client's
 * global one: tests and embedders run several processes' parts in one Node.js; see
 * cmd/metrics-catalogue.ts), and each area registers its own metrics on it.
 */
import type { Registry } from 'prom-client';

/**
 * The metric of that name when the registry has it already, else a new one: several parts of one
 * process (one SMAPI client or host operator per host) share a registry, which takes a name once.
 */
export function registerOnce<T>(registry: Registry, name: string, make: (registers: Registry[]) => T): T {
  return (registry.getSingleMetric(name) as unknown as T | undefined) ?? make([registry]);
}
