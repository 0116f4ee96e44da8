import { FINALIZER, hostOf, type ZGuest } from '../../api/index.js';
import { HypervisorError, NotSupportedError, ZvmError } from '../../errors.js';
import type { Hypervisor } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import { keyOf, type StateStore } from '../../store/port.js';
import { addFinalizer, removeFinalizer } from '../kit/index.js';
import { applyImageDeploy } from './apply-image.js';
import { EventReasons, eventForStep } from './events.js';
import { explainRefusal } from './refusals.js';
import { isHypervisorStep, type Step } from './steps.js';

export interface ApplyContext {
  /** absent when the host is unknown: only store steps can run then */
  hv: Hypervisor | undefined;
  store: StateStore;
  events: EventRecorder;
  log: Logger;
  guest: ZGuest;
  /** upper-cased z/VM userid */
  userid: string;
  signal: AbortSignal;
  /** the steps were planned on a held observation: a refusal is not reported, the caller reads the host and plans again */
  held?: boolean;
}

export interface ApplyOutcome {
  applied: Step[];
  /** a terminal hypervisor failure that stopped the run; later steps were not attempted */
  failure?: HypervisorError;
}

/**
 * Runs the steps in order. A retryable hypervisor error (and any other error) is thrown so the
 * runtime backs off; a terminal one stops the run and is returned for status, so it does not loop.
 */
export async function applyZGuestSteps(steps: Step[], ctx: ApplyContext): Promise<ApplyOutcome> {
  const applied: Step[] = [];
  try {
    for (const step of steps) {
      try {
        await applyZGuestStep(step, ctx);
      } catch (caught) {
        if (!(caught instanceof HypervisorError) || caught.retryable) throw caught;
        const err = explainRefusal(step, caught, ctx.guest);
        if (!ctx.held) {
          ctx.log.warn({ err, op: step.op }, 'hypervisor refused step');
          ctx.events.event(ctx.guest, 'Warning', EventReasons.hypervisorError, `${step.op}: ${err.fn} rc ${err.rc} rs ${err.rs}: ${err.message}`);
        }
        return { applied, failure: err };
      }
      applied.push(step);
      const ev = eventForStep(step, ctx.userid);
      if (ev) ctx.events.event(ctx.guest, 'Normal', ev.reason, ev.message);
    }
    return { applied };
  } finally {
    logApplied(ctx.log, applied);
  }
}

/**
 * One line per run, not per step (issue 23: lines cost a busy controller CPU): host changes at info,
 * where an operator reads them; the store's bookkeeping alone (finalizer, token acks) at debug.
 */
function logApplied(log: Logger, applied: Step[]): void {
  if (applied.length === 0) return;
  const ops = applied.map((s) => s.op);
  if (applied.some(isHypervisorStep)) log.info({ ops }, 'applied');
  else log.debug({ ops }, 'applied');
}

/** Exactly one hypervisor call or store write per step. */
export async function applyZGuestStep(step: Step, ctx: ApplyContext): Promise<void> {
  switch (step.op) {
    case 'addFinalizer':
      await addFinalizer(ctx.store, ctx.guest, FINALIZER);
      return;
    case 'removeFinalizer':
      await removeFinalizer(ctx.store, ctx.guest, FINALIZER);
      return;
    case 'ackToken':
      return; // recorded in status by computeZGuestStatus
    default:
      return applyHypervisorStep(step, ctx);
  }
}

async function applyHypervisorStep(step: Step, ctx: ApplyContext): Promise<void> {
  const { hv, userid } = ctx;
  if (!hv) throw new ZvmError('INTERNAL', `step ${step.op} needs a hypervisor and host ${hostOf(ctx.guest)} has none`);
  const opts = { signal: ctx.signal };
  switch (step.op) {
    case 'createGuest':
      return hv.createGuest(step.definition, opts);
    case 'deleteGuest':
      return hv.deleteGuest(userid, opts);
    case 'addDisk':
      await hv.addDisk(userid, step.disk, opts);
      return;
    case 'removeDisk':
      return hv.removeDisk(userid, step.vdev, opts);
    case 'start':
      return hv.start(userid, opts);
    case 'stop':
      return hv.stop(userid, opts);
    case 'pause':
      return hv.pause(userid, opts);
    case 'unpause':
      return hv.unpause(userid, opts);
    case 'setDirectoryCpus':
      return hv.setDirectoryCpus(userid, step.count, opts);
    case 'setDirectoryShare':
      return hv.setDirectoryShare(userid, step.share, opts);
    case 'punchGrowRootScript':
      if (!hv.mgmt?.growRootVolume) throw new NotSupportedError('The requested function: grow_root_volume needs the host\'s management guest, which is not configured');
      return hv.mgmt.growRootVolume(userid, step.osVersion, opts);
    case 'defineActiveCpus':
      return hv.defineActiveCpus(userid, { active: step.active, count: step.count }, opts);
    case 'rewriteDirectory': {
      const { op: _op, ...change } = step;
      return hv.rewriteDirectory(userid, change, opts);
    }
    case 'deployImage':
      return applyImageDeploy(hv, userid, step, opts, { store: ctx.store, key: keyOf(ctx.guest), log: ctx.log });
    case 'createNic':
      return hv.createNic(userid, { vdev: step.vdev, ...(step.macId ? { macId: step.macId } : {}) }, opts);
    case 'deleteNic':
      return hv.deleteNic(userid, step.vdev, opts);
    case 'coupleNic':
      return hv.coupleNic(userid, step.vdev, step.vswitch, opts);
    case 'uncoupleNic':
      return hv.uncoupleNic(userid, step.vdev, opts);
  }
}
