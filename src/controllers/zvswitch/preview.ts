/**
 * A ZVswitch change plan: the reconciler's planner (planZVswitch) over a fresh read of the switch, each
 * host step sent through the reconciler's own call (host-call.ts) to the adapter's dry run, so the
 * listed SMAPI calls are the ones the reconciler would send.
 */
import { VSWITCH_FINALIZER, vswitchNameOf, type ZVswitch } from '../../api/index.js';
import { NotSupportedError } from '../../errors.js';
import type { Hypervisor } from '../../hypervisor/index.js';
import { recordSteps, type KindPlan } from '../kit/preview-steps.js';
import { callHost } from './host-call.js';
import { hasFinalizer, isDeleting, isHostStep, planZVswitch, type VswitchStep } from './plan.js';

export interface VswitchPreviewInput {
  /** the resource as stored (or as apply would store it) */
  vswitch: ZVswitch;
  hv: Hypervisor;
  signal: AbortSignal;
}

export async function previewZVswitch({ vswitch, hv, signal }: VswitchPreviewInput): Promise<KindPlan> {
  const host = vswitch.spec.host ?? 'default';
  const dry = hv.dryRun?.();
  if (!dry) throw new NotSupportedError(`host ${hv.hostName} cannot compute a change plan (its adapter has no dry run)`);
  const ops = dry.hv.vswitches;
  if (!ops) return { host, steps: [], problems: [`host ${host} has no vswitch support`], changes: false };
  const name = vswitchNameOf(vswitch);
  // the finalizer is a store write of its own reconcile; the host steps that follow are planned now
  const needsFinalizer = !isDeleting(vswitch) && !hasFinalizer(vswitch);
  const planned = needsFinalizer ? { ...vswitch, metadata: { ...vswitch.metadata, finalizers: [...(vswitch.metadata.finalizers ?? []), VSWITCH_FINALIZER] } } : vswitch;
  const observed = await ops.describe(name, { signal });
  const steps: VswitchStep[] = [...(needsFinalizer ? [{ op: 'addFinalizer' } as const] : []), ...planZVswitch({ vswitch: planned, observed })];
  const recorded = await recordSteps(dry, steps, (step) => callHost(step, name, ops, signal));
  return { host, steps: recorded.map((r) => ({ ...r, host: isHostStep(r.step) })), problems: [], changes: steps.length > 0 };
}
