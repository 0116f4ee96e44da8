import { POOL_LABEL, TEMPLATE_HASH_LABEL, type ZGuest, type ZGuestPool, type ZGuestPoolStatus } from '../../api/index.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';
import { isGuestConflicted, isGuestDeleting, isGuestReady } from './guests.js';
import type { PoolPlan } from './plan.js';

export interface PoolStatusInput {
  pool: ZGuestPool;
  /** the pool's guests after this run acted */
  guests: ZGuest[];
  plan: PoolPlan;
  classRevision: number | undefined;
  now: Date;
}

/** Pure: counts, the rollout's state as a phase, and the Ready and Synced conditions. */
export function computePoolStatus(input: PoolStatusInput): ZGuestPoolStatus {
  const { pool, plan } = input;
  const members = input.guests.filter((g) => !isGuestDeleting(g) && !isGuestConflicted(g));
  const ready = members.filter(isGuestReady).length;
  const updated = members.filter((g) => g.metadata.labels?.[TEMPLATE_HASH_LABEL] === plan.hash).length;
  const replicas = pool.spec.replicas;
  const settled = members.length === replicas && ready === replicas && updated === replicas;
  const phase = plan.stalled ? 'Stalled' : pool.spec.paused ? 'Paused' : plan.rollingOut ? 'RollingOut' : settled ? 'Ready' : 'Scaling';
  const conditions: ConditionInput[] = [
    settled
      ? { type: 'Ready', status: 'True', reason: 'AllReplicasReady', message: `${ready} of ${replicas} guests Ready` }
      : { type: 'Ready', status: 'False', reason: phase, message: `${ready} of ${replicas} guests Ready, ${updated} from the current template` },
    plan.stalled
      ? { type: 'Synced', status: 'False', reason: plan.stalled.reason, message: plan.stalled.message }
      : { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', message: '' },
  ];
  return {
    ...pool.status,
    observedGeneration: pool.metadata.generation,
    replicas: members.length,
    readyReplicas: ready,
    updatedReplicas: updated,
    selector: `${POOL_LABEL}=${pool.metadata.name}`,
    templateHash: plan.hash,
    lastIndex: plan.lastIndex,
    ...(input.classRevision !== undefined ? { classRevision: input.classRevision } : {}),
    phase,
    conditions: mergeConditions(pool.status?.conditions, conditions, input.now.toISOString(), pool.metadata.generation),
  };
}
