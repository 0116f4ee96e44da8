/**
 * A ZVolume change plan: the reconciler's own decision (plan.ts) and phases (phases.ts), with the FCP
 * ledger as it will show the volume's connections taken or given back, run against the adapter's dry
 * run, so the listed SMAPI calls (dedicate, undedicate) are the ones the reconciler would send. Nothing
 * is written: the store is only read.
 */
import type { ZVolume } from '../../api/index.js';
import { NotSupportedError } from '../../errors.js';
import type { Hypervisor } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../store/port.js';
import { recordSteps, type KindPlan } from '../kit/preview-steps.js';
import {
  applyDedications, applyUndedications, expectedView, FcpNotFoundError, planDedications, planUndedications, readLedgerView, type PhaseContext,
} from './phases.js';
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
  const ctx: PhaseContext = { store: input.store, fcp, log: input.log, signal };
  const steps = planZVolume(volume);
  const problems: string[] = [];
  const recorded = await recordSteps(dry, steps, async (step) => {
    try {
      if (step.op === 'attach') {
        const view = expectedView(await readLedgerView(ctx, volume), volume, true);
        await applyDedications(ctx, volume, planDedications(volume, view));
      }
      if (step.op === 'detach') {
        const view = expectedView(await readLedgerView(ctx, volume), volume, false);
        await applyUndedications(ctx, volume, planUndedications(volume, view));
      }
    } catch (err) {
      if (step.op === 'detach' && err instanceof FcpNotFoundError) return; // nothing of ours is left on it (as the reconciler)
      // what the reconciler reports as status.lastError: the plan shows it instead of its calls
      const failure = computeVolumeError(err);
      if (!failure) throw err;
      problems.push(`${step.op}: ${failure.errmsg}`);
    }
  });
  return { host, steps: recorded.map((r) => ({ ...r, host: r.step.op === 'attach' || r.step.op === 'detach' })), problems, changes: steps.length > 0 };
}
