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
import {
  applyDedications, applyUndedications, FcpNotFoundError, heldConnections, ledgerShows, planDedications, planUndedications, readLedgerView, sameConnections,
  type Connections, type PhaseContext,
} from './phases.js';
import { planZVolume, type VolumeStep } from './plan.js';

export type ZVolumeReconcilerDeps = HostReconcilerDeps;

/** feilong's volume module id (docs/rest-interface.md §2.1). */
const VOLUME_MOD = 30;
/** After a finalizer write the watch event brings the object back (and the attach); this is only a safety net. */
const FINALIZER_REQUEUE_MS = 1;
/** A volume waiting for the FCP ledger to show (or drop) its connections is woken by the template's change; this is the safety net. */
export const LEDGER_WAIT_MS = 2_000;

/** A failure the user must act on, as status.lastError; anything else is retried by the runtime. */
export function computeVolumeError(err: unknown): HvError | undefined {
  if (err instanceof FcpNotFoundError) return { overallRC: 404, modID: VOLUME_MOD, rc: 404, rs: 1, errmsg: err.message };
  if (err instanceof HypervisorError && !err.retryable) return err.toFields();
  return undefined;
}

type Phase = 'Attaching' | 'Attached' | 'Failed' | 'Detaching' | typeof HOST_NOT_FOUND;

/** Status after one reconcile; conditions follow the phase. */
export function computeVolumeStatus(v: ZVolume, phase: Phase, now: string, extra: Partial<ZVolumeStatus> = {}): ZVolumeStatus {
  const message = extra.lastError?.errmsg ?? '';
  const underWay = phase === 'Detaching' || phase === 'Attaching';
  const conditions: ConditionInput[] = phase === 'Attached'
    ? [{ type: 'Ready', status: 'True', reason: VolumeReasons.attached, message: `attached to ${v.spec.assignerId.toUpperCase()}` },
      { type: 'Synced', status: 'True', reason: VolumeReasons.attached, message: '' }]
    : [{ type: 'Ready', status: 'False', reason: phase, message },
      { type: 'Synced', status: underWay ? 'True' : 'False', reason: phase === 'Failed' ? VolumeReasons.attachFailed : phase, message }];
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

  /**
   * Gives the connections back (the ledger drops them), then undedicates the FCPs left without any.
   * A Result ends the run: waiting for the ledger, or the host refused (the status says why, the finalizer stays).
   */
  async function detach(v: ZVolume, ctx: PhaseContext): Promise<Result | undefined> {
    const now = () => clock().toISOString();
    let held: Connections = [];
    try {
      const view = await readLedgerView(ctx, v);
      held = view.connections;
      if (heldConnections(v).length > 0) {
        await writeStatus(v, computeVolumeStatus(v, 'Detaching', now(), { connections: [] }));
        return requeueAfter(LEDGER_WAIT_MS);
      }
      if (!ledgerShows(view, v, false)) return requeueAfter(LEDGER_WAIT_MS);
      await applyUndedications(ctx, v, planUndedications(v, view));
      return undefined;
    } catch (err) {
      if (err instanceof FcpNotFoundError) return undefined; // nothing of ours can be left on an FCP no template lists
      const lastError = computeVolumeError(err);
      if (!lastError) throw err;
      // rolled back: the connections are held again, as before the detach
      const connections = v.spec.doRollback !== false ? held : [];
      await writeStatus(v, computeVolumeStatus(v, 'Failed', now(), { lastError, connections }));
      deps.events.event(v, 'Warning', VolumeReasons.detachFailed, lastError.errmsg);
      return done();
    }
  }

  /** Takes the connections (the ledger counts them), then dedicates the FCPs whose first connection this is. */
  async function attach(v: ZVolume, ctx: PhaseContext): Promise<Result | undefined> {
    const now = () => clock().toISOString();
    let held: Connections = v.status?.connections ?? [];
    try {
      const view = await readLedgerView(ctx, v);
      held = view.connections;
      if (!sameConnections(v.status?.connections, view.connections) || v.status?.observedGeneration !== v.metadata.generation) {
        await writeStatus(v, computeVolumeStatus(v, 'Attaching', now(), { connections: view.connections }));
        return requeueAfter(LEDGER_WAIT_MS);
      }
      if (!ledgerShows(view, v, true)) return requeueAfter(LEDGER_WAIT_MS);
      const dedicate = planDedications(v, view);
      await applyDedications(ctx, v, dedicate);
      const before = new Set((v.status?.fcps ?? []).filter((f) => f.dedicated).map((f) => f.fcp));
      const fcps = v.spec.fcps.map((f) => f.toLowerCase()).map((fcp) => ({ fcp, dedicated: before.has(fcp) || dedicate.includes(fcp) }));
      await writeStatus(v, computeVolumeStatus(v, 'Attached', now(), { fcps, connections: view.connections, attachedAt: v.status?.attachedAt ?? now() }));
      deps.events.event(v, 'Normal', VolumeReasons.attached, `attached to ${v.spec.assignerId.toUpperCase()} through ${fcps.map((f) => f.fcp).join(', ')}`);
      return undefined;
    } catch (err) {
      const lastError = computeVolumeError(err);
      if (!lastError) throw err;
      // rolled back: the connections go too; without rollback the partial attach stays for a detach
      const rolledBack = v.spec.doRollback !== false ? { fcps: [], connections: [] } : { connections: held };
      await writeStatus(v, computeVolumeStatus(v, 'Failed', now(), { lastError, ...rolledBack }));
      deps.events.event(v, 'Warning', VolumeReasons.attachFailed, lastError.errmsg);
      return undefined;
    }
  }

  /** One step of the plan; a Result ends the run. */
  async function applyStep(v: ZVolume, step: VolumeStep, ctx: PhaseContext): Promise<Result | undefined> {
    switch (step.op) {
      case 'addFinalizer':
        await addFinalizer(deps.store, v, VOLUME_FINALIZER);
        return requeueAfter(FINALIZER_REQUEUE_MS);
      case 'attach':
        return attach(v, ctx);
      case 'detach':
        return detach(v, ctx);
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
