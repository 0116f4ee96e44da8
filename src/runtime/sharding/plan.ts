import { createHash } from 'node:crypto';

/**
 * Who should hold which host (pure). Every replica runs this on what it observed and acts only on its
 * own part, so the replicas converge without talking to each other, as in Argo CD's cluster sharding:
 * - the fair share is ceil(hosts / live replicas), so the shares always cover every host;
 * - a replica above its share releases the surplus (a replica joined, or hosts were deleted);
 * - a replica below its share takes free hosts: no Lease yet, released, or expired (its holder died);
 * - ties are broken by rendezvous hashing (score of replica × host), so that each replica prefers
 *   different hosts (few write conflicts) and a host stays where it is when nothing changes.
 */
export interface HostLeaseView {
  /** empty or absent: released */
  holder?: string;
  /** the holder stopped renewing for a full lease duration, on the observer's clock */
  expired: boolean;
}

export interface ShardPlanInput {
  self: string;
  /** identities with a live heartbeat; self counts even if its own heartbeat is not seen yet */
  liveReplicas: string[];
  /** every ZHost */
  hosts: string[];
  /** the hosts this replica holds now (renewed within the renew deadline) */
  held: string[];
  /** the host Leases as observed; a host without one is free */
  leases: ReadonlyMap<string, HostLeaseView>;
}

export interface ShardPlan {
  share: number;
  keep: string[];
  release: string[];
  acquire: string[];
}

/** Rendezvous (highest random weight) score: stable, uniform, and different per replica. */
export function rendezvousScore(replica: string, host: string): number {
  return createHash('sha256').update(`${replica}\u0000${host}`).digest().readUInt32BE(0);
}

export function fairShare(hostCount: number, replicaCount: number): number {
  return Math.ceil(hostCount / Math.max(1, replicaCount));
}

export function isFree(lease: HostLeaseView | undefined): boolean {
  return !lease || !lease.holder || lease.expired;
}

export function planShards(input: ShardPlanInput): ShardPlan {
  const hosts = new Set(input.hosts);
  const replicas = new Set([...input.liveReplicas, input.self]);
  const share = fairShare(hosts.size, replicas.size);
  const byPreference = (a: string, b: string): number => rendezvousScore(input.self, b) - rendezvousScore(input.self, a) || a.localeCompare(b);
  const held = [...new Set(input.held)].filter((h) => hosts.has(h)).sort(byPreference);
  const gone = input.held.filter((h) => !hosts.has(h));
  const keep = held.slice(0, share);
  const release = [...gone, ...held.slice(share)];
  const wanted = Math.max(0, share - keep.length);
  const acquire = [...hosts]
    .filter((h) => !held.includes(h) && isFree(input.leases.get(h)))
    .sort(byPreference)
    .slice(0, wanted);
  return { share, keep, release, acquire };
}
