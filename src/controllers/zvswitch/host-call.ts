/** The host call of each step: what the reconciler sends, and what the plan (preview.ts) records. */
import type { VswitchOps } from '../../hypervisor/index.js';
import type { VswitchStep } from './plan.js';

/** Sends the step's call; a store-only step (finalizer, claim) calls nothing. */
export async function callHost(step: VswitchStep, name: string, ops: VswitchOps, signal: AbortSignal): Promise<void> {
  switch (step.op) {
    case 'create': return ops.create(step.def, { signal });
    case 'delete': return ops.delete(step.name, { signal });
    case 'grant': return ops.grant(name, step.userid, step.vlanIds, { signal });
    case 'revoke': return ops.revoke(name, step.userid, { signal });
    default: return undefined;
  }
}
