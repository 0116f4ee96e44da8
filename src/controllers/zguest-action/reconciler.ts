import { RELOCATED_TO_ANNOTATION, type ZGuest, type ZGuestAction } from '../../api/index.js';
import { HypervisorError, NotFoundError } from '../../errors.js';
import type { HypervisorRegistry } from '../../hypervisor/index.js';
import type { Logger } from '../../log.js';
import type { EventRecorder } from '../../runtime/events.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import type { ObjectKey, StateStore } from '../../store/port.js';
import { HOST_NOT_FOUND, hostNotKnown, HYPERVISOR_ERROR, lookupHost, reconcileLogger, writeStatusIfChanged } from '../kit/index.js';
import {
  computeActionStatus, isFinished, notActiveError, notFoundError, phaseOf, remainingTtlMs, toRelocationRequest, type Outcome,
} from './plan.js';

export interface ZGuestActionReconcilerDeps {
  store: StateStore;
  hypervisors: HypervisorRegistry;
  events: EventRecorder;
  log: Logger;
  clock?: () => Date;
}

const KIND = 'ZGuestAction';

/**
 * Runs each ZGuestAction once (docs/architecture.md §3): Pending → Running → Succeeded | Failed, then deletes
 * it once ttlSecondsAfterFinished has passed. Status is written before the hypervisor call, so a
 * restart sees Running and decides from the host whether the work happened.
 */
export function createZGuestActionReconciler(deps: ZGuestActionReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());

  async function write(action: ZGuestAction, outcome: Outcome): Promise<ZGuestAction> {
    return writeStatusIfChanged(deps.store, action, computeActionStatus(action, outcome, clock()));
  }

  async function finish(action: ZGuestAction, outcome: Outcome): Promise<Result> {
    const written = await write(action, outcome);
    const type = outcome.phase === 'Succeeded' ? 'Normal' : 'Warning';
    deps.events.event(action, type, outcome.reason, outcome.message);
    return requeueAfter(Math.max(1, remainingTtlMs(written, clock())));
  }

  async function collect(action: ZGuestAction, key: ObjectKey): Promise<Result> {
    const left = remainingTtlMs(action, clock());
    if (left > 0) return requeueAfter(left);
    await deps.store.delete(KIND, key).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
    return done();
  }

  /** The relocation target marker on the ZGuest: while set, the ZGuest controller leaves the guest alone. */
  async function markGuest(guest: ZGuest, destination: string | null): Promise<void> {
    const key = { namespace: guest.metadata.namespace, name: guest.metadata.name };
    await deps.store.patch('ZGuest', key, { metadata: { annotations: { [RELOCATED_TO_ANNOTATION]: destination } } });
  }

  async function liveMigrate(action: ZGuestAction, log: Logger, signal: AbortSignal): Promise<Result> {
    const lm = action.spec.liveMigrate;
    if (!lm) return finish(action, { phase: 'Failed', reason: 'InvalidSpec', message: 'spec.liveMigrate is required for LiveMigrate' });
    const guestKey = { namespace: action.metadata.namespace, name: action.spec.guest };
    const guest = await deps.store.get<ZGuest>('ZGuest', guestKey);
    if (!guest) return finish(action, { phase: 'Failed', reason: 'GuestNotFound', message: `ZGuest ${action.spec.guest} does not exist`, lastError: notFoundError(`ZGuest '${action.spec.guest}'`) });
    const userid = guest.spec.userid.toUpperCase();
    const { hostName, hv } = lookupHost(deps.hypervisors, guest);
    if (!hv) return finish(action, { phase: 'Failed', reason: HOST_NOT_FOUND, message: hostNotKnown(hostName), userid });
    if (!hv.relocation) return finish(action, { phase: 'Failed', reason: 'NotSupported', message: `host ${hostName} cannot relocate guests`, userid });
    const req = toRelocationRequest(lm);
    const marked = guest.metadata.annotations?.[RELOCATED_TO_ANNOTATION] === req.destination;
    if ((await hv.queryPowerState(userid, { signal })) === 'off') {
      // a restart after the move itself: our marker is there and the guest left this host
      if (phaseOf(action) === 'Running' && !req.test && marked) {
        return finish(action, { phase: 'Succeeded', reason: 'Relocated', message: `${userid} no longer runs here; it was moved to ${req.destination}`, userid });
      }
      return finish(action, { phase: 'Failed', reason: 'GuestNotActive', message: `guest ${userid} is not logged on`, userid, lastError: notActiveError(userid) });
    }
    const running = await write(action, { phase: 'Running', reason: 'Running', message: `${req.test ? 'testing a move' : 'moving'} ${userid} to ${req.destination}`, userid });
    // the marker goes first: a crash during the move must not let the ZGuest controller log the guest on here
    if (!req.test && !marked) await markGuest(guest, req.destination);
    try {
      await hv.relocation.relocate(userid, req, { signal });
    } catch (err) {
      if (!req.test) await markGuest(guest, null);
      if (!(err instanceof HypervisorError) || err.retryable) {
        await write(running, { phase: 'Pending', reason: 'Retrying', message: `will retry: ${(err as Error).message}`, userid });
        throw err;
      }
      log.warn({ err, userid }, 'relocation refused');
      return finish(running, { phase: 'Failed', reason: HYPERVISOR_ERROR, message: err.message, userid, lastError: err.toFields() });
    }
    const message = req.test ? `${userid} can be moved to ${req.destination}` : `${userid} moved to ${req.destination}`;
    return finish(running, { phase: 'Succeeded', reason: req.test ? 'TestPassed' : 'Relocated', message, userid });
  }

  return {
    kind: KIND,
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const action = await deps.store.get<ZGuestAction>(KIND, key);
      if (!action || action.metadata.deletionTimestamp) return done();
      if (isFinished(action)) return collect(action, key);
      return liveMigrate(action, reconcileLogger(deps.log, KIND, key), signal);
    },
  };
}
