import type { LeaseRecord } from '../leader-election.js';

/**
 * When a Lease counts as expired, with client-go's rule: only after its resourceVersion has stayed the
 * same for the lease's duration on OUR clock since we first saw that version. Other replicas' clocks
 * (renewTime) are never trusted, so clock skew cannot make two replicas hold one host.
 */
export interface ObservedLease {
  name: string;
  record: LeaseRecord;
  resourceVersion: string;
}

export interface LeaseObserver {
  /** Records a listing made at `now`; forgets leases no longer listed. */
  observe(leases: ObservedLease[], now: number): void;
  expired(name: string, now: number): boolean;
}

export function createLeaseObserver(defaultDurationMs: number): LeaseObserver {
  const seen = new Map<string, { resourceVersion: string; at: number; durationMs: number }>();
  return {
    observe(leases, now) {
      const listed = new Set<string>();
      for (const lease of leases) {
        listed.add(lease.name);
        const durationMs = (lease.record.leaseDurationSeconds ?? defaultDurationMs / 1000) * 1000;
        const before = seen.get(lease.name);
        if (before?.resourceVersion === lease.resourceVersion) before.durationMs = durationMs;
        else seen.set(lease.name, { resourceVersion: lease.resourceVersion, at: now, durationMs });
      }
      for (const name of [...seen.keys()]) if (!listed.has(name)) seen.delete(name);
    },
    expired(name, now) {
      const s = seen.get(name);
      return !s || s.at + s.durationMs <= now;
    },
  };
}
