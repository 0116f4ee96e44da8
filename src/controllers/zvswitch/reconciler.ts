import { VSWITCH_FINALIZER, vswitchNameOf, type ZVswitch, type ZVswitchStatus } from '../../api/index.js';
import { HypervisorError } from '../../errors.js';
import type { Hypervisor, VswitchOps } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import { currentReconcile } from '../../runtime/reconcile-context.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import { keyOf, keyString, type ObjectKey, type StateStore } from '../../store/port.js';
import { sameStatus, warnOnNewProblem } from '../conditions.js';
import { hasFinalizer, isDeleting, isHostStep, ownsSwitch, planZVswitch, type VswitchStep } from './plan.js';
import { computeZVswitchStatus } from './status.js';
import { callHost } from './host-call.js';

export interface ZVswitchReconcilerDeps {
  store: StateStore;
  hypervisors: { forHost(name: string): Hypervisor | undefined };
  events: EventRecorder;
  log: Logger;
  clock?: () => Date;
  /** how soon to look again for a host that is not (yet) known */
  hostRetryMs?: number;
}

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
  const hostRetryMs = deps.hostRetryMs ?? 30_000;

  async function writeStatus(v: ZVswitch, status: ZVswitchStatus): Promise<ZVswitch> {
    if (sameStatus(v.status, status)) return v;
    return deps.store.updateStatus<ZVswitch>({ ...v, status });
  }

  async function writeFinalizers(v: ZVswitch, finalizers: string[]): Promise<void> {
    await deps.store.patch(KIND, keyOf(v), { metadata: { finalizers } }, { resourceVersion: v.metadata.resourceVersion });
  }

  async function applyStep(step: VswitchStep, run: RunState, ops: VswitchOps, signal: AbortSignal): Promise<void> {
    const v = run.current;
    const name = vswitchNameOf(v);
    switch (step.op) {
      case 'addFinalizer': return writeFinalizers(v, [...(v.metadata.finalizers ?? []), VSWITCH_FINALIZER]);
      case 'removeFinalizer': return writeFinalizers(v, (v.metadata.finalizers ?? []).filter((f) => f !== VSWITCH_FINALIZER));
      case 'claim':
        run.current = await deps.store.updateStatus<ZVswitch>({ ...v, status: { ...v.status, owned: true } });
        return;
      case 'create':
        try {
          await callHost(step, name, ops, signal);
          deps.events.event(v, 'Normal', 'Created', `created vswitch ${name}`);
        } catch (err) {
          if (!ALREADY_EXISTS(err)) throw err;
          // defined meanwhile by someone else: adopt it, and leave it on the host at deletion
          run.current = await deps.store.updateStatus<ZVswitch>({ ...v, status: { ...v.status, owned: false } });
        }
        return;
      case 'delete':
        await callHost(step, name, ops, signal);
        deps.events.event(v, 'Normal', 'Deleted', `deleted vswitch ${name}`);
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
        deps.events.event(run.current, 'Warning', 'HypervisorError', `${step.op}: ${err.fn} rc ${err.rc} rs ${err.rs}: ${err.message}`);
        run.failure = err;
        return;
      }
    }
  }

  async function hostMissing(v: ZVswitch, hostName: string, log: Logger): Promise<Result> {
    if (isDeleting(v) && !ownsSwitch(v)) {
      await writeFinalizers(v, (v.metadata.finalizers ?? []).filter((f) => f !== VSWITCH_FINALIZER));
      return done();
    }
    log.warn({ host: hostName }, 'host not found or without vswitch support');
    const status = computeZVswitchStatus({ vswitch: v, hostName, observed: undefined, hostMissing: true, now: clock() });
    await writeStatus(v, status);
    warnOnNewProblem(deps.events, v, v.status?.conditions, status.conditions);
    return requeueAfter(hostRetryMs);
  }

  return {
    kind: KIND,
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const v = await deps.store.get<ZVswitch>(KIND, key);
      if (!v || (isDeleting(v) && !hasFinalizer(v))) return done();
      const hostName = v.spec.host ?? 'default';
      const base = currentReconcile()?.log ?? deps.log.child({ kind: KIND, key: keyString(key) });
      const log = base.child({ host: hostName });
      if (!isDeleting(v) && !hasFinalizer(v)) {
        await writeFinalizers(v, [...(v.metadata.finalizers ?? []), VSWITCH_FINALIZER]);
        return requeueAfter(FINALIZER_REQUEUE_MS);
      }
      const ops = deps.hypervisors.forHost(hostName)?.vswitches;
      if (!ops) return hostMissing(v, hostName, log);

      const name = vswitchNameOf(v);
      const observed = await ops.describe(name, { signal });
      const run: RunState = { current: v, applied: [] };
      await applySteps(planZVswitch({ vswitch: v, observed }), run, ops, signal, log);
      if (run.applied.some((s) => s.op === 'removeFinalizer')) return done(); // released: the object may be gone

      const after = run.applied.some(isHostStep) ? await ops.describe(name, { signal }) : observed;
      const status = computeZVswitchStatus({ vswitch: run.current, hostName, observed: after, failure: run.failure, now: clock() });
      await writeStatus(run.current, status);
      log.debug({ phase: status.phase }, 'reconciled');
      return done();
    },
  };
}
