import { hostOf, VOLUME_FINALIZER, type HvError, type ZVolume, type ZVolumeStatus } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey } from '../../store/port.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';
import {
  addFinalizer, DEFAULT_HOST_RETRY_MS, HOST_NOT_FOUND, lookupHost, reconcileLogger, removeFinalizer, reportProblem, writeStatusIfChanged,
  type HostReconcilerDeps,
} from '../kit/index.js';
import { VolumeReasons } from './reasons.js';
import { applyAttach, applyDetach, FcpNotFoundError, type PhaseContext } from './phases.js';
import { planZVolume, type VolumeStep } from './plan.js';

export type ZVolumeReconcilerDeps = HostReconcilerDeps;

/** feilong's volume module id (docs/rest-interface.md §2.1). */
const VOLUME_MOD = 30;
/** After a finalizer write the watch event brings the object back (and the attach); this is only a safety net. */
const FINALIZER_REQUEUE_MS = 1;

/** A failure the user must act on, as status.lastError; anything else is retried by the runtime. */
export function computeVolumeError(err: unknown): HvError | undefined {
  if (err instanceof FcpNotFoundError) return { overallRC: 404, modID: VOLUME_MOD, rc: 404, rs: 1, errmsg: err.message };
  if (err instanceof HypervisorError && !err.retryable) return err.toFields();
  return undefined;
}

type Phase = 'Attached' | 'Failed' | 'Detaching' | typeof HOST_NOT_FOUND;

/** Status after one reconcile; conditions follow the phase. */
export function computeVolumeStatus(v: ZVolume, phase: Phase, now: string, extra: Partial<ZVolumeStatus> = {}): ZVolumeStatus {
  const message = extra.lastError?.errmsg ?? '';
  const conditions: ConditionInput[] = phase === 'Attached'
    ? [{ type: 'Ready', status: 'True', reason: VolumeReasons.attached, message: `attached to ${v.spec.assignerId.toUpperCase()}` },
      { type: 'Synced', status: 'True', reason: VolumeReasons.attached, message: '' }]
    : [{ type: 'Ready', status: 'False', reason: phase, message },
      { type: 'Synced', status: phase === 'Detaching' ? 'True' : 'False', reason: phase === 'Failed' ? VolumeReasons.attachFailed : phase, message }];
  const status: ZVolumeStatus = {
    ...v.status,
    observedGeneration: v.metadata.generation,
    conditions: mergeConditions(v.status?.conditions, conditions, now, v.metadata.generation),
    phase,
    host: hostOf(v),
    ...extra,
  };
  if (!extra.lastError) delete status.lastError;
  return status;
}

/**
 * ZVolume: present = attached to spec.assignerId through spec.fcps. Attach runs once per
 * generation (a failure is terminal until the spec changes); deletion detaches behind a finalizer.
 */
export function createZVolumeReconciler(deps: ZVolumeReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const hostRetryMs = deps.hostRetryMs ?? DEFAULT_HOST_RETRY_MS;
  const writeStatus = (v: ZVolume, status: ZVolumeStatus) => writeStatusIfChanged(deps.store, v, status);

  /** false when the host refused: the status says why and the finalizer stays. */
  async function detach(v: ZVolume, ctx: PhaseContext): Promise<boolean> {
    try {
      await applyDetach(ctx, v);
      return true;
    } catch (err) {
      const lastError = computeVolumeError(err);
      if (!lastError) throw err;
      await writeStatus(v, computeVolumeStatus(v, 'Failed', clock().toISOString(), { lastError }));
      deps.events.event(v, 'Warning', VolumeReasons.detachFailed, lastError.errmsg);
      return false;
    }
  }

  async function attach(v: ZVolume, ctx: PhaseContext): Promise<void> {
    const now = () => clock().toISOString();
    try {
      const fcps = await applyAttach(ctx, v);
      await writeStatus(v, computeVolumeStatus(v, 'Attached', now(), { fcps, attachedAt: v.status?.attachedAt ?? now() }));
      deps.events.event(v, 'Normal', VolumeReasons.attached, `attached to ${v.spec.assignerId.toUpperCase()} through ${fcps.map((f) => f.fcp).join(', ')}`);
    } catch (err) {
      const lastError = computeVolumeError(err);
      if (!lastError) throw err;
      await writeStatus(v, computeVolumeStatus(v, 'Failed', now(), { lastError, ...(v.spec.doRollback !== false ? { fcps: [] } : {}) }));
      deps.events.event(v, 'Warning', VolumeReasons.attachFailed, lastError.errmsg);
    }
  }

  /** One step of the plan; a Result ends the run. */
  async function applyStep(v: ZVolume, step: VolumeStep, ctx: PhaseContext): Promise<Result | undefined> {
    switch (step.op) {
      case 'addFinalizer':
        await addFinalizer(deps.store, v, VOLUME_FINALIZER);
        return requeueAfter(FINALIZER_REQUEUE_MS);
      case 'attach':
        await attach(v, ctx);
        return undefined;
      case 'detach':
        return (await detach(v, ctx)) ? undefined : done();
      case 'removeFinalizer':
        await removeFinalizer(deps.store, v, VOLUME_FINALIZER);
        return undefined;
    }
  }

  return {
    kind: 'ZVolume',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const v = await deps.store.get<ZVolume>('ZVolume', key);
      if (!v) return done();
      const steps = planZVolume(v);
      if (v.metadata.deletionTimestamp && steps.length === 0) return done(); // released: nothing of ours is left
      const { hostName, hv } = lookupHost(deps.hypervisors, v);
      if (!hv?.fcp) {
        const lastError = { overallRC: 404, modID: VOLUME_MOD, rc: 404, rs: 1, errmsg: `ZHost ${hostName} does not exist.` };
        return reportProblem(deps, v, computeVolumeStatus(v, HOST_NOT_FOUND, clock().toISOString(), { lastError }), hostRetryMs);
      }
      const ctx: PhaseContext = { store: deps.store, fcp: hv.fcp, log: reconcileLogger(deps.log, 'ZVolume', key), signal };
      for (const step of steps) {
        const end = await applyStep(v, step, ctx);
        if (end) return end;
      }
      return done();
    },
  };
}
