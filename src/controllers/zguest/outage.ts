/**
 * A host whose SMAPI does not answer (README "When a host is unreachable"). The drift detector's
 * batched look is the probe: when it has failed with no answer at all (refused, timed out, the
 * connection dropped, the reference's SMAPI-down codes) for longer than a short grace, the host is
 * unreachable: the tracker records it (kit/facts.ts) and the ZHost and ZGuest reconcilers say so
 * (every guest on it `Ready=Unknown`, reason HostUnreachable, phase Unknown), as Kubernetes says of
 * a node it cannot hear. Nothing is changed on the host or in a spec; the first look that gets an
 * answer ends the outage and the guests' status is computed from the host again.
 */
import { HypervisorError } from '../../errors.js';

export const DEFAULT_OUTAGE_GRACE_MS = 10_000;

/**
 * How long one drift look may wait for the host: the grace itself. A host that accepts the connection
 * but never replies is then unreachable once the grace is over, not after the SMAPI client's own
 * timeout and retries (minutes). A look that needs longer than the grace on a healthy host (a very
 * large directory) wants a longer grace.
 */
export function lookBoundMs(graceMs: number): number {
  return Math.max(graceMs, MIN_LOOK_BOUND_MS);
}

/** a grace of 0 (declare at the first failure) still gives a look this long to answer */
const MIN_LOOK_BOUND_MS = 1000;

/** A call that got no SMAPI answer at all (HypervisorError.unanswered). */
export function isNoAnswer(err: unknown): boolean {
  return err instanceof HypervisorError && err.unanswered;
}

export interface Reachability {
  /** ms since the epoch of the first look in a row that got no answer */
  failingSince?: number;
  unreachable: boolean;
}

export const REACHABLE: Reachability = { unreachable: false };

/** What one look at the host got: an answer (success or a SMAPI error), or none at all. */
export type LookOutcome = 'answered' | 'noAnswer';

export interface ReachabilityStep {
  next: Reachability;
  /** 'down': the outage starts now; 'up': the host answers again */
  transition?: 'down' | 'up';
  /** look again this soon (the rest of the grace), rather than a whole drift period later */
  lookAgainMs?: number;
}

/** Pure: the host's reachability after one look that started at `startedAt` (default `now`; a failing look may take a while). */
export function stepReachability(prev: Reachability, outcome: LookOutcome, now: number, graceMs: number, startedAt = now): ReachabilityStep {
  if (outcome === 'answered') return { next: REACHABLE, ...(prev.unreachable ? { transition: 'up' as const } : {}) };
  const failingSince = prev.failingSince ?? startedAt;
  if (prev.unreachable) return { next: { failingSince, unreachable: true } };
  const left = failingSince + graceMs - now;
  if (left > 0) return { next: { failingSince, unreachable: false }, lookAgainMs: left };
  return { next: { failingSince, unreachable: true }, transition: 'down' };
}

export function unreachableMessage(host: string, failingSince: number): string {
  return `the SMAPI of host ${host} has not answered since ${new Date(failingSince).toISOString()}; the guest's state is unknown until it does`;
}
