import type { HvError, LiveMigrate, ZGuestAction, ZGuestActionPhase, ZGuestActionStatus } from '../../api/index.js';
import type { RelocationForce, RelocationRequest } from '../../hypervisor/index.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';

export const DEFAULT_TTL_SECONDS = 3600;

export const ActionConditions = { complete: 'Complete', failed: 'Failed' } as const;

export function phaseOf(action: ZGuestAction): ZGuestActionPhase {
  return (action.status?.phase as ZGuestActionPhase | undefined) ?? 'Pending';
}

export function isFinished(action: ZGuestAction): boolean {
  const phase = phaseOf(action);
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Pure: how long a finished action still lives; 0 or less means it is due for deletion. */
export function remainingTtlMs(action: ZGuestAction, now: Date): number {
  const ttl = (action.spec.ttlSecondsAfterFinished ?? DEFAULT_TTL_SECONDS) * 1000;
  const completed = Date.parse(action.status?.completedAt ?? '');
  if (Number.isNaN(completed)) return 0;
  return completed + ttl - now.getTime();
}

/** The VMRELOCATE request of a LiveMigrate spec (feilong's `parms` keys, in our spelling). */
export function toRelocationRequest(lm: LiveMigrate): RelocationRequest {
  const p = lm.parms ?? {};
  const force: RelocationForce[] = [];
  if (p.forceArch) force.push('ARCHITECTURE');
  if (p.forceDomain) force.push('DOMAIN');
  if (p.forceStorage) force.push('STORAGE');
  const req: RelocationRequest = { destination: lm.destination.toUpperCase(), test: (lm.operation ?? 'move') === 'test' };
  if (p.maxTotal !== undefined) req.maxTotal = p.maxTotal;
  if (p.maxQuiesce !== undefined) req.maxQuiesce = p.maxQuiesce;
  if (p.immediate) req.immediate = true;
  if (force.length > 0) req.force = force;
  return req;
}

export interface Outcome {
  phase: ZGuestActionPhase;
  reason: string;
  message: string;
  userid?: string;
  lastError?: HvError;
}

/** Pure: the status after an outcome; times come from `now`, start time is kept once set. */
export function computeActionStatus(action: ZGuestAction, outcome: Outcome, now: Date): ZGuestActionStatus {
  const at = now.toISOString();
  const prev = action.status ?? {};
  const finished = outcome.phase === 'Succeeded' || outcome.phase === 'Failed';
  const conditions: ConditionInput[] = [
    { type: ActionConditions.complete, status: outcome.phase === 'Succeeded' ? 'True' : 'False', reason: outcome.reason, message: outcome.message },
    { type: ActionConditions.failed, status: outcome.phase === 'Failed' ? 'True' : 'False', reason: outcome.reason, message: outcome.message },
  ];
  const status: ZGuestActionStatus = {
    ...prev,
    observedGeneration: action.metadata.generation,
    phase: outcome.phase,
    message: outcome.message,
    startedAt: prev.startedAt ?? (outcome.phase === 'Pending' ? undefined : at),
    completedAt: finished ? (prev.completedAt ?? at) : undefined,
    lastError: outcome.lastError,
    conditions: mergeConditions(prev.conditions, conditions, at, action.metadata.generation),
  };
  if (outcome.userid) status.userid = outcome.userid;
  return JSON.parse(JSON.stringify(status)) as ZGuestActionStatus;
}

/** feilong's 409 rs1 for an operation that needs a logged-on guest (§3.13). */
export function notActiveError(userid: string): HvError {
  return { overallRC: 409, modID: 10, rc: 409, rs: 1, errmsg: `Guest '${userid}' is not in active status.` };
}

export function notFoundError(what: string): HvError {
  return { overallRC: 404, modID: 10, rc: 404, rs: 1, errmsg: `${what} does not exist.` };
}
