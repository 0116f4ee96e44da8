/**
 * A change plan: the reconciler's own planner (planZGuest) over a fresh read of the host, with each
 * hypervisor step run through the same apply code against a dry-run twin of the host adapter, so the
 * listed calls are the ones the reconciler would send, in its order, with its parameters.
 */
import { FINALIZER, hostOf, type ZGuest, type ZHost } from '../../api/index.js';
import { ZvmError } from '../../errors.js';
import type { Hypervisor, PowerState } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { createDryRunStore } from '../../store/dry-run-store.js';
import { keyOf, type StateStore } from '../../store/port.js';
import { applyZGuestStep } from './apply.js';
import { bindClass } from './bind-class.js';
import { desiredUserid, type GuestDefaults } from './definition.js';
import { resolveGuestDefaults } from './defaults.js';
import { findOlderClaim, ownerUidOf } from './ownership.js';
import { recordSteps, type RecordedStep } from '../kit/preview-steps.js';
import { hasFinalizer, isDeleting, planZGuest } from './plan.js';
import { isHypervisorStep, type Problem, type Step } from './steps.js';

export type PlannedStep = RecordedStep<Step>;

export interface GuestPlan {
  kind: 'ZGuest';
  namespace: string;
  name: string;
  host: string;
  userid: string;
  /** the guest's state on the host before the change; undefined when it is not defined */
  observed?: { power: PowerState };
  steps: PlannedStep[];
  problems: Problem[];
  /** true when anything would be written (to the host or to the resource) */
  changes: boolean;
}

export interface PreviewInput {
  /** the resource as stored (or as apply would store it): its class is resolved here */
  guest: ZGuest;
  hv: Hypervisor;
  /** the built-in defaults; the guest's class and ZHost spec.defaults come first (defaults.ts) */
  defaults: GuestDefaults;
  store: StateStore;
  log: Logger;
  /** every ZGuest, for userid claims */
  guests: ZGuest[];
  signal: AbortSignal;
}

const noEvents = { event: () => undefined };

export async function previewZGuest(input: PreviewInput): Promise<GuestPlan> {
  const { hv, signal } = input;
  const dry = hv.dryRun?.();
  if (!dry) throw new ZvmError('NOT_SUPPORTED', `host ${hv.hostName} cannot compute a change plan (its adapter has no dry run)`);
  const key = keyOf(input.guest);
  const userid = desiredUserid(input.guest);
  const head = { kind: 'ZGuest', namespace: key.namespace ?? 'default', name: key.name, host: hostOf(input.guest), userid } as const;
  // the store is only read: the run's own writes (a class binding) stay in the dry run
  const store = createDryRunStore(input.store);
  const bound = await bindClass(store, input.guest, true);
  if ('waitingFor' in bound) throw new ZvmError('INTERNAL', `unexpected wait while planning: ${bound.waitingFor}`);
  if (!('guest' in bound)) return { ...head, steps: [], problems: [bound.problem], changes: false };
  const guest = bound.guest;
  const observed = await hv.describeGuest(userid, { signal });
  const claimedBy = findOlderClaim(guest, input.guests, observed ? ownerUidOf(observed) : undefined);
  // the finalizer is a store write of its own reconcile; the host steps that follow are planned now
  const needsFinalizer = !isDeleting(guest) && !hasFinalizer(guest);
  const planned = needsFinalizer ? { ...guest, metadata: { ...guest.metadata, finalizers: [...(guest.metadata.finalizers ?? []), FINALIZER] } } : guest;
  const host = await store.get<ZHost>('ZHost', { name: hostOf(guest) });
  const defaults = resolveGuestDefaults({ spec: guest.spec, host: host?.spec.defaults, builtIn: input.defaults });
  const plan = planZGuest({ guest: planned, observed, defaults, claimedBy });
  if (bound.problem) plan.problems.push(bound.problem);
  const steps: Step[] = needsFinalizer ? [{ op: 'addFinalizer' }, ...plan.steps] : plan.steps;

  const ctx = { hv: dry.hv, store, events: noEvents, log: input.log, guest: planned, userid, signal };
  const out = await recordSteps(dry, steps, async (step) => {
    if (isHypervisorStep(step)) await applyZGuestStep(step, ctx);
  }, observed?.directory.lines);
  return {
    ...head,
    ...(observed ? { observed: { power: observed.power } } : {}),
    steps: out, problems: plan.problems, changes: steps.length > 0,
  };
}
