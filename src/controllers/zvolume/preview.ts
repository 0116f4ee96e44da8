/**
 * A ZVolume change plan: the reconciler's own decision (plan.ts) and phases (phases.ts applyAttach /
 * applyDetach), the phases run against
 * the adapter's dry run and a dry-run store, so the FCP ledger is changed only in memory and the
 * listed SMAPI calls (dedicate, undedicate) are the ones the reconciler would send.
 */
import type { ZVolume } from '../../api/index.js';
import { NotSupportedError } from '../../errors.js';
import type { Hypervisor } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { createDryRunStore } from '../../store/dry-run-store.js';
import type { StateStore } from '../../store/port.js';
import { recordSteps, type KindPlan } from '../kit/preview-steps.js';
import { applyAttach, applyDetach, type PhaseContext } from './phases.js';
import { planZVolume } from './plan.js';
import { computeVolumeError } from './reconciler.js';

export interface VolumePreviewInput {
  /** the resource as stored (or as apply would store it) */
  volume: ZVolume;
  hv: Hypervisor;
  store: StateStore;
  log: Logger;
  signal: AbortSignal;
}

export async function previewZVolume(input: VolumePreviewInput): Promise<KindPlan> {
  const { volume, hv, signal } = input;
  const host = volume.spec.host ?? 'default';
  const dry = hv.dryRun?.();
  if (!dry) throw new NotSupportedError(`host ${hv.hostName} cannot compute a change plan (its adapter has no dry run)`);
  const fcp = dry.hv.fcp;
  if (!fcp) return { host, steps: [], problems: [`host ${host} has no FCP support`], changes: false };
  const ctx: PhaseContext = { store: createDryRunStore(input.store), fcp, log: input.log, signal };
  const steps = planZVolume(volume);
  const problems: string[] = [];
  const recorded = await recordSteps(dry, steps, async (step) => {
    try {
      if (step.op === 'attach') await applyAttach(ctx, volume);
      if (step.op === 'detach') await applyDetach(ctx, volume);
    } catch (err) {
      // what the reconciler reports as status.lastError: the plan shows it instead of its calls
      const failure = computeVolumeError(err);
      if (!failure) throw err;
      problems.push(`${step.op}: ${failure.errmsg}`);
    }
  });
  return { host, steps: recorded.map((r) => ({ ...r, host: r.step.op === 'attach' || r.step.op === 'detach' })), problems, changes: steps.length > 0 };
}
