import { VSWITCH_FINALIZER, vswitchNameOf, type ZVswitch } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import type { VswitchOps } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey } from '../../store/port.js';
import {
  addFinalizer, DEFAULT_HOST_RETRY_MS, HYPERVISOR_ERROR, lookupHost, reconcileLogger, removeFinalizer, reportProblem, writeStatusIfChanged,
  type HostReconcilerDeps,
} from '../kit/index.js';
import { hasFinalizer, isDeleting, isHostStep, ownsSwitch, planZVswitch, type VswitchStep } from './plan.js';
import { VswitchReasons } from './reasons.js';
import { computeZVswitchStatus } from './status.js';
import { callHost } from './host-call.js';

export type ZVswitchReconcilerDeps = HostReconcilerDeps;

const KIND = 'ZVswitch';
/** After a finalizer write the watch event brings the object back; this is only a safety net. */
const FINALIZER_REQUEUE_MS = 1;
const ALREADY_EXISTS = (err: unknown) => err instanceof HypervisorError && err.rc === 212 && err.rs === 36;

interface RunState {
  current: ZVswitch;
  applied: VswitchStep[];
  failure?: HypervisorError;
}

export function createZVswitchReconciler(deps: ZVswitchReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const hostRetryMs = deps.hostRetryMs ?? DEFAULT_HOST_RETRY_MS;

  async function applyStep(step: VswitchStep, run: RunState, ops: VswitchOps, signal: AbortSignal): Promise<void> {
    const v = run.current;
    const name = vswitchNameOf(v);
    switch (step.op) {
      case 'addFinalizer':
        await addFinalizer(deps.store, v, VSWITCH_FINALIZER);
        return;
      case 'removeFinalizer':
        await removeFinalizer(deps.store, v, VSWITCH_FINALIZER);
        return;
      case 'claim':
        run.current = await deps.store.updateStatus<ZVswitch>({ ...v, status: { ...v.status, owned: true } });
        return;
      case 'create':
        try {
          await callHost(step, name, ops, signal);
          deps.events.event(v, 'Normal', VswitchReasons.created, `created vswitch ${name}`);
        } catch (err) {
          if (!ALREADY_EXISTS(err)) throw err;
          // defined meanwhile by someone else: adopt it, and leave it on the host at deletion
          run.current = await deps.store.updateStatus<ZVswitch>({ ...v, status: { ...v.status, owned: false } });
        }
        return;
      case 'delete':
        await callHost(step, name, ops, signal);
        deps.events.event(v, 'Normal', VswitchReasons.deleted, `deleted vswitch ${name}`);
        return;
      case 'grant':
      case 'revoke': return callHost(step, name, ops, signal);
    }
  }

  /** Runs the steps in order; a terminal hypervisor failure stops the run and is reported, anything else is thrown (backoff). */
  async function applySteps(steps: VswitchStep[], run: RunState, ops: VswitchOps, signal: AbortSignal, log: Logger): Promise<void> {
    for (const step of steps) {
      try {
        await applyStep(step, run, ops, signal);
        run.applied.push(step);
      } catch (err) {
        if (!(err instanceof HypervisorError) || err.retryable) throw err;
        log.warn({ err, op: step.op }, 'hypervisor refused step');
        deps.events.event(run.current, 'Warning', HYPERVISOR_ERROR, `${step.op}: ${err.fn} rc ${err.rc} rs ${err.rs}: ${err.message}`);
        run.failure = err;
        return;
      }
    }
  }

  async function hostMissing(v: ZVswitch, hostName: string, log: Logger): Promise<Result> {
    if (isDeleting(v) && !ownsSwitch(v)) {
      await removeFinalizer(deps.store, v, VSWITCH_FINALIZER);
      return done();
    }
    log.warn({ host: hostName }, 'host not found or without vswitch support');
    return reportProblem(deps, v, computeZVswitchStatus({ vswitch: v, hostName, observed: undefined, hostMissing: true, now: clock() }), hostRetryMs);
  }

  return {
    kind: KIND,
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const v = await deps.store.get<ZVswitch>(KIND, key);
      if (!v || (isDeleting(v) && !hasFinalizer(v))) return done();
      const { hostName, hv } = lookupHost(deps.hypervisors, v);
      const log = reconcileLogger(deps.log, KIND, key).child({ host: hostName });
      if (!isDeleting(v) && !hasFinalizer(v)) {
        await addFinalizer(deps.store, v, VSWITCH_FINALIZER);
        return requeueAfter(FINALIZER_REQUEUE_MS);
      }
      const ops = hv?.vswitches;
      if (!ops) return hostMissing(v, hostName, log);

      const name = vswitchNameOf(v);
      const observed = await ops.describe(name, { signal });
      const run: RunState = { current: v, applied: [] };
      await applySteps(planZVswitch({ vswitch: v, observed }), run, ops, signal, log);
      if (run.applied.some((s) => s.op === 'removeFinalizer')) return done(); // released: the object may be gone

      const after = run.applied.some(isHostStep) ? await ops.describe(name, { signal }) : observed;
      const status = computeZVswitchStatus({ vswitch: run.current, hostName, observed: after, failure: run.failure, now: clock() });
      await writeStatusIfChanged(deps.store, run.current, status);
      log.debug({ phase: status.phase }, 'reconciled');
      return done();
    },
  };
}
