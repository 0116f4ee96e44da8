/**
 * The controllers module's whole public surface: one reconciler factory per kind, for the lead to
 * wire into the runtime (src/runtime), plus the pure pieces other modules may reuse.
 */
import type { Reconciler } from '../runtime/result.js';
import { createZGuestReconciler, type ZGuestReconcilerDeps } from './zguest/reconciler.js';
import { createZGuestActionReconciler } from './zguest-action/reconciler.js';

export { createZGuestReconciler, type ZGuestReconcilerDeps } from './zguest/reconciler.js';
export { DEFAULT_GUEST_DEFAULTS, type GuestDefaults } from './zguest/definition.js';
export { planZGuest, type PlanInput } from './zguest/plan.js';
export { planClassBinding, resolveGuest, resolveGuestSpec, resolveLoosely, type ClassBinding, type ResolvedGuestSpec, type ResolvedZGuest } from './zguest/class.js';
export { computeZGuestStatus, ConditionTypes, type StatusInput } from './zguest/status.js';
export type { Plan, Problem, Step } from './zguest/steps.js';
export { mapHostToGuests, mapUseridRivals } from './zguest/watches.js';
export { claimIndexValue } from './zguest/ownership.js';
export { createZGuestActionReconciler, type ZGuestActionReconcilerDeps } from './zguest-action/reconciler.js';
export { createObservedCache, type ObservedCache } from './zguest/observed-cache.js';
export { createZGuestDriftDetector, type DriftDetectorDeps } from './zguest/drift.js';
export { createDriftMetrics, guestMetricsRunnable, type DriftMetrics } from './metrics.js';
export { isSettled, zguestClaimPredicate, zguestEventPredicate } from './zguest/predicates.js';
export { findCondition, isConditionTrue, mergeConditions, sameStatus, toCondition, type ConditionInput } from './conditions.js';
export { createZFcpTemplateReconciler, type ZFcpTemplateReconcilerDeps } from './zfcp-template/reconciler.js';
export { createZVolumeReconciler, type ZVolumeReconcilerDeps } from './zvolume/reconciler.js';
export { createVolumeControllers, type VolumeControllersDeps } from './zvolume/controllers.js';
export { createImageControllers, type ImageControllersDeps } from './zimage/controllers.js';
export { createZImageReconciler, type ZImageReconcilerDeps } from './zimage/reconciler.js';
export * as fcpLedger from './zfcp-template/ledger-api.js';
export { createZGuestPoolReconciler, type ZGuestPoolReconcilerDeps } from './zguest-pool/reconciler.js';
export { createPoolControllers, mapGuestToPool, type PoolControllersDeps } from './zguest-pool/controllers.js';
export { planPool, type PoolPlan, type PoolPlanInput } from './zguest-pool/plan.js';
export { computePoolStatus } from './zguest-pool/status.js';
export { createZVswitchReconciler, type ZVswitchReconcilerDeps } from './zvswitch/reconciler.js';
export { createZHostReconciler, computeZHostStatus, type ZHostReconcilerDeps } from './zhost/reconciler.js';
export { createVswitchAndHostControllers, type NetworkControllersDeps } from './zvswitch/controllers.js';
export { createOrphanSweeper, DEFAULT_ORPHAN_SCAN_MS, OrphanEventReasons, type OrphanSweeper, type OrphanSweeperDeps } from './zhost/orphan-sweeper.js';

/** What every reconciler factory needs; each kind takes what it uses from it. */
export type ControllerDeps = ZGuestReconcilerDeps;

/** Reconciler factories by kind, in the order they should start. */
export const reconcilerFactories: { kind: string; create: (deps: ControllerDeps) => Reconciler }[] = [
  { kind: 'ZGuest', create: createZGuestReconciler },
  { kind: 'ZGuestAction', create: createZGuestActionReconciler },
];

/** Every reconciler, ready to hand to the runtime's manager. */
export function createReconcilers(deps: ControllerDeps): Reconciler[] {
  return reconcilerFactories.map((f) => f.create(deps));
}
export { DEFAULT_DRIFT_MS, DEFAULT_RESYNC_MS, type ControllerGroupDeps } from './wiring.js';
