/**
 * The ZVolume decision, pure: what the reconciler does with a volume as stored. The reconciler runs
 * these steps (reconciler.ts) and the change plan shows them (preview.ts), so both follow one decision.
 */
import { VOLUME_FINALIZER, type ZVolume } from '../../api/index.js';
import { isSettled } from './phases.js';

export type VolumeStep = { op: 'addFinalizer' | 'removeFinalizer' } | { op: 'attach' | 'detach'; assignerId: string; fcps: string };

/** Finalizer, then attach once per generation; on deletion detach, then release. */
export function planZVolume(v: ZVolume): VolumeStep[] {
  const ours = v.metadata.finalizers?.includes(VOLUME_FINALIZER) ?? false;
  const phase = { assignerId: v.spec.assignerId.toUpperCase(), fcps: v.spec.fcps.join(',') };
  if (v.metadata.deletionTimestamp) return ours ? [{ op: 'detach', ...phase }, { op: 'removeFinalizer' }] : [];
  if (!ours) return [{ op: 'addFinalizer' }, { op: 'attach', ...phase }];
  return isSettled(v) ? [] : [{ op: 'attach', ...phase }];
}
