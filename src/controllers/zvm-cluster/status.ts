/**
 * The status of a ZVMCluster (Cluster API InfraCluster): its failure domains are the ZHosts it may use
 * that exist, control-plane ones marked; provisioned once there is one. Pure.
 */
import { DEFAULT_HOST, type FailureDomain, type ZHost, type ZVMCluster, type ZVMClusterStatus } from '../../api/index.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';

export interface ClusterFacts {
  zc: ZVMCluster;
  /** the ZHosts the spec names or selects (what the store has) */
  zhosts: ZHost[];
  paused: boolean;
}

/** The hosts named (hosts, else those the selector picked, else default) and which of them are missing. */
export function clusterHosts(zc: ZVMCluster, zhosts: ZHost[]): { present: string[]; missing: string[] } {
  const known = new Set(zhosts.map((h) => h.metadata.name));
  const wanted = zc.spec.hosts ?? (zc.spec.hostSelector ? [...known].sort() : [DEFAULT_HOST]);
  return { present: wanted.filter((h) => known.has(h)), missing: wanted.filter((h) => !known.has(h)) };
}

export function computeClusterStatus(f: ClusterFacts, now: Date): ZVMClusterStatus {
  const before = f.zc.status ?? {};
  const { present, missing } = clusterHosts(f.zc, f.zhosts);
  const controlPlane = new Set(f.zc.spec.controlPlaneHosts ?? present);
  const failureDomains: FailureDomain[] = present.map((name) => ({ name, controlPlane: controlPlane.has(name), attributes: { zhost: name } }));
  // Cluster API never expects provisioned to go back to false
  const provisioned = before.initialization?.provisioned === true || failureDomains.length > 0;
  const missingText = missing.length > 0 ? `; ZHost ${missing.join(', ')} not found` : '';
  const ready: ConditionInput = failureDomains.length > 0
    ? { type: 'Ready', status: 'True', reason: 'HostsFound', message: `${failureDomains.length} failure domain(s): ${present.join(', ')}${missingText}` }
    : { type: 'Ready', status: 'False', reason: 'NoHosts', message: `none of the cluster's ZHosts exists${missingText}` };
  const paused: ConditionInput = { type: 'Paused', status: f.paused ? 'True' : 'False', reason: f.paused ? 'Paused' : 'NotPaused', message: f.paused ? 'the Cluster or this object is paused' : 'reconciling' };
  // paused: only the Paused condition moves (Cluster API's contract)
  if (f.paused) return { ...before, conditions: mergeConditions(before.conditions, [paused], now.toISOString(), f.zc.metadata.generation) };
  return {
    ...before,
    observedGeneration: f.zc.metadata.generation,
    conditions: mergeConditions(before.conditions, [ready, paused], now.toISOString(), f.zc.metadata.generation),
    phase: provisioned ? 'Provisioned' : 'Pending',
    failureDomains,
    ...(provisioned ? { initialization: { provisioned: true } } : {}),
  };
}
