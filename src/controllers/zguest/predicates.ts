import { isDeepStrictEqual } from 'node:util';
import type { Resource, ZGuest } from '../../api/index.js';
import type { EventPredicate } from '../../runtime/event-handlers.js';
import { isConditionTrue } from '../conditions.js';
import { hasFinalizer, isDeleting } from './plan.js';
import { ConditionTypes } from './status.js';
import { pendingTokens } from './tokens.js';

/**
 * Settled: the controller has observed this generation, reported it Ready, holds its finalizer and
 * owes no token. Such a guest needs the host only if the host changed, which the drift detector
 * (drift.ts) finds with one batched query per host, not one read per guest.
 */
export function isSettled(guest: ZGuest): boolean {
  return (
    guest.status?.observedGeneration === guest.metadata.generation &&
    isConditionTrue(guest.status?.conditions, ConditionTypes.ready) &&
    hasFinalizer(guest) &&
    !isDeleting(guest) &&
    pendingTokens(guest).length === 0
  );
}

/** What a user (or the REST sidecar) can change that the controller must act on. */
function userChange(old: ZGuest, next: ZGuest): boolean {
  return (
    old.metadata.generation !== next.metadata.generation ||
    old.metadata.deletionTimestamp !== next.metadata.deletionTimestamp ||
    !isDeepStrictEqual(old.metadata.annotations ?? {}, next.metadata.annotations ?? {}) ||
    (!isDeleting(next) && !hasFinalizer(next))
  );
}

/**
 * Which ZGuest events deserve a reconcile (controller-runtime's GenerationChangedPredicate, plus
 * annotations for the one-shot tokens). The controller's own writes (status, its finalizer) and
 * informer resyncs of settled guests are skipped: they would only re-read a host nothing changed.
 * A guest that is not settled still reconciles on every event, so nothing can get stuck.
 */
export const zguestEventPredicate: EventPredicate<Resource> = {
  create: (obj) => !isSettled(obj as ZGuest),
  update: (oldObj, newObj) => {
    const old = oldObj as ZGuest;
    const next = newObj as ZGuest;
    if (old === next) return !isSettled(next); // resync
    return userChange(old, next) || (!isSettled(next) && !ownWrite(old, next));
  },
};

/** A status or finalizer write: the reconcile that made it already decided what comes next. */
function ownWrite(old: ZGuest, next: ZGuest): boolean {
  return !isDeepStrictEqual(old.status ?? {}, next.status ?? {}) || !isDeepStrictEqual(old.metadata.finalizers ?? [], next.metadata.finalizers ?? []);
}

/**
 * Userid claims change only when a claimant appears, goes, or starts going. A settled claimant
 * appearing (a restart re-listing the cache) changes no claim: any rival of it is unsettled and
 * reconciles on its own event.
 */
export const zguestClaimPredicate: EventPredicate<Resource> = {
  create: (obj) => !isSettled(obj as ZGuest),
  update: (oldObj, newObj) => oldObj !== newObj && oldObj.metadata.deletionTimestamp !== newObj.metadata.deletionTimestamp,
};
