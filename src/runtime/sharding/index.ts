export { createShardCoordinator, FencedError, type ShardCoordinator, type ShardCoordinatorOptions } from './coordinator.js';
export { createHostLabeler, hostOf, DEFAULT_HOST, HOST_LABEL, SHARDED_KINDS, type HostLabelerOptions } from './labeler.js';
export { createLeaseObserver, type LeaseObserver, type ObservedLease } from './lease-observer.js';
export { createKubeShardLeaseStore, shardLeaseName, LEASE_ROLE_LABEL, SHARD_GROUP_LABEL, type LeaseRole, type ShardLease, type ShardLeaseStore } from './lease-store.js';
export { createShardMetrics, type ShardMetrics } from './metrics.js';
export { fairShare, isFree, planShards, rendezvousScore, type HostLeaseView, type ShardPlan, type ShardPlanInput } from './plan.js';
