import type { HypervisorHealth } from '../port.js';

/** smtLayer counts 20 consecutive failures as unhealthy (docs/smapi.md §6.2). */
const UNHEALTHY_AFTER = 20;

/** Real success/failure counters of one host's hypervisor calls (GET /smapi_health). */
export function createHealthCounters(clock: () => Date = () => new Date()) {
  const h: HypervisorHealth = { totalSuccess: 0, totalFail: 0, lastSuccess: '', lastFail: '', continuousFail: 0, healthy: true };
  return {
    success(): void {
      h.totalSuccess++;
      h.lastSuccess = clock().toISOString();
      h.continuousFail = 0;
      h.healthy = true;
    },
    failure(): void {
      h.totalFail++;
      h.lastFail = clock().toISOString();
      h.continuousFail++;
      h.healthy = h.continuousFail < UNHEALTHY_AFTER;
    },
    snapshot(): HypervisorHealth {
      return { ...h };
    },
  };
}
export type HealthCounters = ReturnType<typeof createHealthCounters>;
