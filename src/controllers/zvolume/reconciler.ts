import { VOLUME_FINALIZER, type HvError, type ZVolume, type ZVolumeStatus } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import { keyOf, type ObjectKey, type StateStore } from '../../store/port.js';
import { mergeConditions, sameStatus, warnOnNewProblem, type ConditionInput } from '../conditions.js';
import type { HypervisorRegistry } from '../../hypervisor/index.js';
import { applyAttach, applyDetach, FcpNotFoundError, isSettled, type PhaseContext } from './phases.js';

export interface ZVolumeReconcilerDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  clock?: () => Date;
  hostRetryMs?: number;
}

/** feilong's volume module id (docs/rest-interface.md §2.1). */
const VOLUME_MOD = 30;

/** A failure the user must act on, as status.lastError; anything else is retried by the runtime. */
export function computeVolumeError(err: unknown): HvError | undefined {
  if (err instanceof FcpNotFoundError) return { overallRC: 404, modID: VOLUME_MOD, rc: 404, rs: 1, errmsg: err.message };
  if (err instanceof HypervisorError && !err.retryable) return err.toFields();
  return undefined;
}

type Phase = 'Attached' | 'Failed' | 'Detaching' | 'HostNotFound';

/** Status after one reconcile; conditions follow the phase. */
export function computeVolumeStatus(v: ZVolume, phase: Phase, now: string, extra: Partial<ZVolumeStatus> = {}): ZVolumeStatus {
  const message = extra.lastError?.errmsg ?? '';
  const conditions: ConditionInput[] = phase === 'Attached'
    ? [{ type: 'Ready', status: 'True', reason: 'Attached', message: `attached to ${v.spec.assignerId.toUpperCase()}` },
      { type: 'Synced', status: 'True', reason: 'Attached', message: '' }]
    : [{ type: 'Ready', status: 'False', reason: phase, message },
      { type: 'Synced', status: phase === 'Detaching' ? 'True' : 'False', reason: phase === 'Failed' ? 'AttachFailed' : phase, message }];
  const status: ZVolumeStatus = {
    ...v.status,
    observedGeneration: v.metadata.generation,
    conditions: mergeConditions(v.status?.conditions, conditions, now, v.metadata.generation),
    phase,
    host: v.spec.host ?? 'default',
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
  const hostRetryMs = deps.hostRetryMs ?? 30_000;

  async function writeStatus(v: ZVolume, status: ZVolumeStatus): Promise<void> {
    if (!sameStatus(v.status, status)) await deps.store.updateStatus<ZVolume>({ ...v, status });
  }

  async function setFinalizers(v: ZVolume, finalizers: string[]): Promise<void> {
    await deps.store.patch('ZVolume', keyOf(v), { metadata: { finalizers } }, { resourceVersion: v.metadata.resourceVersion });
  }

  async function detach(v: ZVolume, ctx: PhaseContext): Promise<Result> {
    try {
      await applyDetach(ctx, v);
    } catch (err) {
      const lastError = computeVolumeError(err);
      if (!lastError) throw err;
      await writeStatus(v, computeVolumeStatus(v, 'Failed', clock().toISOString(), { lastError }));
      deps.events.event(v, 'Warning', 'DetachFailed', lastError.errmsg);
      return done();
    }
    await setFinalizers(v, (v.metadata.finalizers ?? []).filter((f) => f !== VOLUME_FINALIZER));
    return done();
  }

  async function attach(v: ZVolume, ctx: PhaseContext): Promise<Result> {
    const now = () => clock().toISOString();
    try {
      const fcps = await applyAttach(ctx, v);
      await writeStatus(v, computeVolumeStatus(v, 'Attached', now(), { fcps, attachedAt: v.status?.attachedAt ?? now() }));
      deps.events.event(v, 'Normal', 'Attached', `attached to ${v.spec.assignerId.toUpperCase()} through ${fcps.map((f) => f.fcp).join(', ')}`);
    } catch (err) {
      const lastError = computeVolumeError(err);
      if (!lastError) throw err;
      await writeStatus(v, computeVolumeStatus(v, 'Failed', now(), { lastError, ...(v.spec.doRollback !== false ? { fcps: [] } : {}) }));
      deps.events.event(v, 'Warning', 'AttachFailed', lastError.errmsg);
    }
    return done();
  }

  return {
    kind: 'ZVolume',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const v = await deps.store.get<ZVolume>('ZVolume', key);
      if (!v) return done();
      const ours = v.metadata.finalizers?.includes(VOLUME_FINALIZER) ?? false;
      if (v.metadata.deletionTimestamp && !ours) return done();
      const hostName = v.spec.host ?? 'default';
      const fcp = deps.hypervisors.forHost(hostName)?.fcp;
      if (!fcp) {
        const lastError = { overallRC: 404, modID: VOLUME_MOD, rc: 404, rs: 1, errmsg: `ZHost ${hostName} does not exist.` };
        const status = computeVolumeStatus(v, 'HostNotFound', clock().toISOString(), { lastError });
        await writeStatus(v, status);
        warnOnNewProblem(deps.events, v, v.status?.conditions, status.conditions);
        return requeueAfter(hostRetryMs);
      }
      const ctx: PhaseContext = { store: deps.store, fcp, log: deps.log.child({ kind: 'ZVolume', key: `${key.namespace}/${key.name}` }), signal };
      if (v.metadata.deletionTimestamp) return detach(v, ctx);
      if (!ours) {
        await setFinalizers(v, [...(v.metadata.finalizers ?? []), VOLUME_FINALIZER]);
        return requeueAfter(1);
      }
      return isSettled(v) ? done() : attach(v, ctx);
    },
  };
}
