import { randomUUID } from 'node:crypto';
import { type ZGuest, type ZGuestStatus, type ZHost } from '../../api/index.js';
import type { GuestState, Hypervisor } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import { currentReconcile } from '../../runtime/reconcile-context.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import { keyOf, keyString, type ObjectKey } from '../../store/port.js';
import { warnOnNewProblem as warnOnNew } from '../conditions.js';
import {
  DEFAULT_HOST_RETRY_MS, isDeletedForMove, HOST_NOT_FOUND, hostNotKnown, HYPERVISOR_ERROR, lookupHost, reportProblem, writeStatusIfChanged, type DriftFact, type FactBoard, type HostReconcilerDeps,
} from '../kit/index.js';
import { applyZGuestSteps, type ApplyContext } from './apply.js';
import { EventReasons } from './events.js';
import { approvalGate, approverOf, PENDING_APPROVAL, withApproval, type PendingPlan } from './approval.js';
import { DEFAULT_GUEST_DEFAULTS, desiredUserid, type GuestDefaults } from './definition.js';
import { resolveGuestDefaults } from './defaults.js';
import { findOlderClaim, ownerUidOf } from './ownership.js';
import { lookAgainOf, observeGuest } from './observe.js';
import { createObservedCache, type ObservedCache } from './observed-cache.js';
import { isDeleting, planZGuest } from './plan.js';
import { projectGuestState, UNPROJECTABLE } from './project.js';
import { wantsDeploy } from './plan-image.js';
import { computeZGuestStatus, PROGRESS_REBASE, withProgressOf, type StatusInput } from './status.js';
import { isHypervisorStep, type Plan, type Problem, type Step } from './steps.js';
import type { DriftMetrics } from '../metrics.js';
import { DriftReasons, isDriftRepair } from './drift-status.js';
import { resolveLoosely, type ResolvedZGuest } from './class.js';
import { claimGuest, needsClaim } from './claim.js';
import { withStatusOfCopy } from './copied.js';
import { createUnrecordedAcks, withAcks } from './unrecorded.js';
import { bindClass } from './bind-class.js';
import { CLASS_REVISION_WAIT_MS } from '../kit/guest-class.js';

export interface ZGuestReconcilerDeps extends HostReconcilerDeps {
  defaults?: GuestDefaults;
  /** how soon to look again while a transition is under way */
  pollMs?: number;
  /**
   * the ZGuests that may claim the guest's userid: every ZGuest, or at least those with its host and
   * userid (an informer index, see claimIndexValue); spares a store list per reconcile
   */
  listGuests?: (guest: ZGuest) => ZGuest[] | Promise<ZGuest[]>;
  /** the observed state held between reconciles; share it with the drift detector (default: a private one) */
  observed?: ObservedCache;
  /** counts the repairs of drifts the drift detector reported */
  driftMetrics?: DriftMetrics;
  /** what the drift detector and outage tracker saw (kit/facts.ts); this reconciler turns it into status */
  facts?: FactBoard;
}

type HostContext = ApplyContext & { hv: Hypervisor };

export function createZGuestReconciler(deps: ZGuestReconcilerDeps): Reconciler {
  const builtIn = deps.defaults ?? DEFAULT_GUEST_DEFAULTS;
  const clock = deps.clock ?? (() => new Date());
  const pollMs = deps.pollMs ?? 2000;
  const hostRetryMs = deps.hostRetryMs ?? DEFAULT_HOST_RETRY_MS;
  const cache = deps.observed ?? createObservedCache();
  // what a run did that a failed status write did not record, planned on until one does (unrecorded.ts)
  const unrecorded = createUnrecordedAcks();

  const writeStatus = (guest: ZGuest, status: ZGuestStatus) => writeStatusIfChanged(deps.store, guest, status, PROGRESS_REBASE);

  /** Warn once per new Synced=False reason; host errors are retried and show in status. */
  function warnOnNewProblem(guest: ZGuest, status: ZGuestStatus): void {
    warnOnNew(deps.events, guest, guest.status?.conditions, status.conditions, [HYPERVISOR_ERROR]);
  }

  function reportRepair(guest: ZGuest, status: ZGuestStatus, hostName: string): void {
    if (!isDriftRepair(guest.status, status)) return;
    deps.driftMetrics?.repaired(hostName);
    deps.events.event(guest, 'Normal', DriftReasons.repaired, `guest ${guest.spec.userid.toUpperCase()} is back to its spec`);
  }

  /** A problem found before the host is read (unknown host, class not to be had): reported, looked at again later. */
  async function reportEarlyProblem(stored: ZGuest, hostName: string, problem: Problem): Promise<Result> {
    const guest = resolveLoosely(stored);
    const plan: Plan = { steps: [], ownership: problem.reason === HOST_NOT_FOUND ? 'unknown' : 'absent', problems: [problem] };
    const status = computeZGuestStatus({ guest, hostName, observed: undefined, plan, pending: false, applied: [], defaults: lastEffective(guest), now: clock() });
    return reportProblem(deps, guest, status, hostRetryMs, [HYPERVISOR_ERROR]);
  }

  /** For a status written without reading the ZHost: the effective values last recorded, else the built-in ones. */
  function lastEffective(guest: ResolvedZGuest): GuestDefaults {
    return guest.status?.effective ?? resolveGuestDefaults({ spec: guest.spec, builtIn });
  }

  /** The guest's ZHost says how changes are applied (changePolicy) and what the guest's spec leaves out (defaults). */
  async function hostSpecOf(hostName: string): Promise<ZHost['spec'] | undefined> {
    return (await deps.store.get<ZHost>('ZHost', { name: hostName }))?.spec;
  }

  /** One Event per plan held (not per reconcile). */
  function reportHeld(guest: ZGuest, pending: PendingPlan): void {
    if (guest.status?.pendingPlan?.hash === pending.hash) return;
    deps.events.event(guest, 'Normal', PENDING_APPROVAL, `plan ${pending.hash} waits for approval: ${pending.steps.join('; ')}`);
  }

  /** The approver is the annotation's field manager (approval.ts approverOf); a failed read only loses the name. */
  async function reportApproved(guest: ZGuest, hash: string, log: Logger): Promise<void> {
    const approver = await approverOf(deps.store, guest).catch((err: unknown) => void log.warn({ err }, 'could not read who approved the plan'));
    log.info({ plan: hash, approvedBy: approver ?? null }, 'approved plan applied');
    const by = approver ? `field manager "${approver}"` : 'an identity this store does not record';
    deps.events.event(guest, 'Normal', EventReasons.approvedPlanApplied, `plan ${hash} applied, approved by ${by}`);
  }

  async function findClaim(guest: ZGuest, observed: GuestState | undefined): Promise<string | undefined> {
    const all = deps.listGuests ? await deps.listGuests(guest) : (await deps.store.list<ZGuest>('ZGuest')).items;
    return findOlderClaim(guest, all, observed ? ownerUidOf(observed) : undefined);
  }

  return {
    kind: 'ZGuest',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const read = await deps.store.get<ZGuest>('ZGuest', key);
      if (!read) return done(); // gone: nothing left to converge
      const { hostName, hv } = lookupHost(deps.hypervisors, read);
      // Inside the runtime its logger already carries controller, key and reconcileId.
      const runtime = currentReconcile();
      const base = runtime ? runtime.log : deps.log.child({ kind: 'ZGuest', key: keyString(key), reconcileId: randomUUID() });
      const log = base.child({ host: hostName });
      const userid = desiredUserid(read);

      // The finalizer guards what is made on a host, so it goes on before anything else, with the uid the
      // owner mark will name (claim.ts); the run goes on from the object the write answered (one reconcile
      // per new guest, not two: issue 23). A guest no host has seen yet goes without it, so that deleting
      // it does not wait.
      const stored = hv && needsClaim(read) ? await claimGuest(deps.store, read) : read;
      const bound = await bindClass(deps.store, stored);
      if ('waitingFor' in bound) {
        log.debug({ waitingFor: bound.waitingFor }, 'class revision not recorded yet');
        return requeueAfter(CLASS_REVISION_WAIT_MS);
      }
      if (!('guest' in bound)) return reportEarlyProblem(stored, hostName, bound.problem);
      const guest = bound.guest;
      const ctxBase = { store: deps.store, events: deps.events, log, guest, userid, signal };
      // Deletions that need nothing from the host: an Orphan one while the host is unknown, and
      // `clusterctl move`'s of the copy it leaves behind (the host is not even read)
      if (isDeleting(guest) && (isDeletedForMove(guest) || (!hv && guest.spec.deletionPolicy === 'Orphan'))) {
        await applyZGuestSteps(planZGuest({ guest, observed: undefined, defaults: resolveGuestDefaults({ spec: guest.spec, builtIn }) }).steps, { ...ctxBase, hv: undefined });
        return done();
      }
      if (!hv) {
        log.warn({ host: hostName }, 'host not found');
        return reportEarlyProblem(stored, hostName, { reason: HOST_NOT_FOUND, severity: 'error', message: hostNotFoundMessage(stored, hostName) });
      }
      const outage = deps.facts?.host(hostName).outage;
      // the host does not answer: no call is made; the status says what was last seen, Ready Unknown
      if (outage && !(isDeleting(guest) && guest.spec.deletionPolicy === 'Orphan')) return reportFromFacts(guest, hostName, { outage });
      try {
        const drift = takeDrift(guest);
        const shown = drift ? await reportDrift(guest, hostName, drift) : guest;
        // a drift makes what the controller held of the guest stale: the host is read again
        return await converge(shown, hostName, { ...ctxBase, guest: shown, hv }, drift !== undefined, bound.problem);
      } catch (err) {
        cache.invalidate(hostName, userid); // the host may have changed in ways this run did not see
        throw err;
      }
    },
  };

  /** Status from the observers' facts alone, nothing read from the host; the fact's end enqueues the guest again. */
  async function reportFromFacts(guest: ResolvedZGuest, hostName: string, facts: Pick<StatusInput, 'outage' | 'drift'>): Promise<Result> {
    const plan: Plan = { steps: [], ownership: 'owned', problems: [] };
    const status = computeZGuestStatus({ guest, hostName, observed: undefined, plan, pending: false, applied: [], defaults: lastEffective(guest), now: clock(), ...facts });
    await writeStatus(guest, status);
    return done();
  }

  /** The drift the detector recorded for this very guest (its uid), once; none while it is being deleted. */
  function takeDrift(guest: ResolvedZGuest): DriftFact | undefined {
    const key = keyString(keyOf(guest));
    const drift = deps.facts?.drift(key);
    if (drift) deps.facts?.clearDrift(key);
    return drift && drift.uid === guest.metadata.uid && !isDeleting(guest) ? drift : undefined;
  }

  /**
   * A drift the detector recorded is shown (Ready=False DriftDetected, Drifted=True) before this run
   * repairs it; the run goes on from the object that write returned, the guest's spec as resolved.
   */
  async function reportDrift(guest: ResolvedZGuest, hostName: string, drift: DriftFact): Promise<ResolvedZGuest> {
    const plan: Plan = { steps: [], ownership: 'owned', problems: [] };
    const status = computeZGuestStatus({ guest, hostName, observed: undefined, plan, pending: false, applied: [], defaults: lastEffective(guest), now: clock(), drift });
    const written = await writeStatus(guest, status);
    return { ...guest, metadata: written.metadata, status: written.status };
  }

  /**
   * A deploy writes status.progress while it runs (apply-image.ts), which moves the object on: the
   * status then goes onto a fresh read, with the progress that read holds (a read from the informer's
   * cache can still be behind; the write then rides out its conflict, see `rebase`).
   */
  async function statusTarget(guest: ResolvedZGuest, plan: Plan, status: ZGuestStatus): Promise<[ZGuest, ZGuestStatus]> {
    if (!plan.steps.some((s) => s.op === 'deployImage')) return [guest, status];
    const current = await deps.store.get<ZGuest>('ZGuest', keyOf(guest));
    if (!current) return [guest, status];
    return [current, withProgressOf(current, status)];
  }

  /** The host state after this run's steps: projected when every step succeeded and is modelled, else read. */
  async function stateAfter(observed: GuestState | undefined, applied: Step[], failed: boolean, ctx: HostContext): Promise<GuestState | undefined> {
    const projected = failed ? UNPROJECTABLE : projectGuestState(observed, applied);
    return projected === UNPROJECTABLE ? ctx.hv.describeGuest(ctx.userid, { signal: ctx.signal }) : projected;
  }

  /** classProblem: the guest keeps its recorded class revision, but the one asked for cannot be had */
  async function converge(given: ResolvedZGuest, hostName: string, ctx: HostContext, fresh: boolean, classProblem?: Problem): Promise<Result> {
    const { userid, log } = ctx;
    // a deploy writes a disk that a logged-on guest holds: the held power is confirmed first (one query)
    const seen = await observeGuest({ hv: ctx.hv, cache, host: hostName, userid, guest: given, fresh, checkPower: wantsDeploy(given), signal: ctx.signal });
    const observed = seen.state;
    const guest = unrecorded.applyTo(withStatusOfCopy(given, observed));
    const claimedBy = await findClaim(guest, observed);
    const hostSpec = await hostSpecOf(hostName);
    const defaults = resolveGuestDefaults({ spec: guest.spec, host: hostSpec?.defaults, builtIn });
    const plan = withProblem(planZGuest({ guest, observed, defaults, claimedBy }), classProblem);
    const policy = hostSpec?.changePolicy;
    const gate = approvalGate(guest, plan.steps, policy);
    const outcome = gate.hold ? { applied: [] } : await applyZGuestSteps(plan.steps, { ...ctx, held: seen.cached });
    unrecorded.remember(guest.metadata.uid, outcome.applied);
    if (!gate.hold && gate.approved && !outcome.failure) await reportApproved(guest, gate.approved, log);
    if (outcome.applied.some((s) => s.op === 'removeFinalizer')) {
      cache.invalidate(hostName, userid);
      unrecorded.recorded(guest.metadata.uid);
      return done(); // released: the object may be gone
    }
    if (outcome.failure && seen.cached) {
      // the held observation may be stale: plan again from a real read before reporting a refusal
      log.debug({ err: outcome.failure }, 'refused on a held observation; reading the host');
      return converge(given, hostName, ctx, true, classProblem); // the object as stored: what this run did is kept in `unrecorded`
    }

    const touched = outcome.applied.some(isHypervisorStep);
    const after = touched ? await stateAfter(observed, outcome.applied, Boolean(outcome.failure), ctx) : observed;
    const final = outcome.failure ? plan : withProblem(planZGuest({ guest: withAcks(guest, outcome.applied), observed: after, defaults, claimedBy }), classProblem);
    const finalGate = gate.hold ? gate : approvalGate(guest, final.steps, policy);
    const pending = !finalGate.hold && !outcome.failure && final.steps.some(isHypervisorStep);
    // while a transition is under way the next look must be a real one
    cache.set(hostName, userid, pending ? undefined : after, lookAgainOf(guest));
    const computed = computeZGuestStatus({
      guest, hostName, observed: after, before: observed, plan: final, pending, failure: outcome.failure, applied: outcome.applied, defaults, now: clock(),
    });
    const status = withApproval(computed, finalGate, policy, clock());
    if (finalGate.hold) reportHeld(guest, finalGate.pending);
    // onto the object as stored: its status is what the run started from (the write compares and rebases on it)
    await writeStatus(...(await statusTarget(given, plan, status)));
    unrecorded.recorded(guest.metadata.uid);
    warnOnNewProblem(guest, status);
    reportRepair(guest, status, hostName);
    log.debug({ phase: status.phase, pending, cached: seen.cached }, 'reconciled');
    return pending ? requeueAfter(pollMs) : done();
  }
}

function withProblem(plan: Plan, problem: Problem | undefined): Plan {
  return problem ? { ...plan, problems: [...plan.problems, problem] } : plan;
}

/** Says how a deletion held by a missing host ends (README "Deleting a ZHost"). */
export function hostNotFoundMessage(guest: ZGuest, hostName: string): string {
  const missing = hostNotKnown(hostName);
  return isDeleting(guest) ? `${missing}: the deletion waits for it; set spec.deletionPolicy: Orphan to delete the resource and leave the guest on z/VM` : missing;
}

