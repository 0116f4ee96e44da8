/**
 * The controllers module's whole public surface: the registry of every kind's controller (registry.ts)
 * and the set builder the operators start them with (wiring.ts), plus the pieces other modules reuse.
 */
export { CAPI_CONTROLLERS, CONTROLLERS, controllerRows } from './registry.js';
export type { CapiOptions } from './wiring.js';
export {
  createControllerSet, DEFAULT_DRIFT_MS, DEFAULT_RESYNC_MS, type ControllerGroupDeps, type ControllerRow, type ControllerSet, type HostLayout, type RowContext, type RowParts,
} from './wiring.js';

export { createZGuestReconciler, type ZGuestReconcilerDeps } from './zguest/reconciler.js';
export { DEFAULT_GUEST_DEFAULTS, type GuestDefaults } from './zguest/definition.js';
export { resolveGuestDefaults, type EffectiveValues, type HostDefaults } from './zguest/defaults.js';
export { planZGuest, type PlanInput } from './zguest/plan.js';
export { claimWithLabel } from './zguest/claim.js';
export { planClassBinding, resolveGuest, resolveGuestSpec, resolveLoosely, type ClassBinding, type ResolvedGuestSpec, type ResolvedZGuest } from './zguest/class.js';
export { computeZGuestStatus, ConditionTypes, type StatusInput } from './zguest/status.js';
export { isHypervisorStep, type Plan, type Problem, type Step } from './zguest/steps.js';
export { previewZGuest, type GuestPlan } from './zguest/preview.js';
export type { DescribedCall } from './kit/plan-describe.js';
export type { KindPlan } from './kit/preview-steps.js';
export { previewZVolume } from './zvolume/preview.js';
export { previewZVswitch } from './zvswitch/preview.js';
export { mapHostToGuests, mapUseridRivals } from './zguest/watches.js';
export { claimIndexValue, markUidOf, ownerUidOf } from './zguest/ownership.js';
export { createZGuestActionReconciler, type ZGuestActionReconcilerDeps } from './zguest-action/reconciler.js';
export { createObservedCache, type ObservedCache } from './zguest/observed-cache.js';
export { createZGuestDriftDetector, type DriftDetectorDeps } from './zguest/drift.js';
export { createDriftMetrics, guestMetricsRunnable, orphanGauge, registerGuestGauges, type DriftMetrics } from './metrics.js';
export { isSettled, zguestClaimPredicate, zguestEventPredicate } from './zguest/predicates.js';
export { findCondition, isConditionTrue, mergeConditions, sameStatus, toCondition, type ConditionInput } from './conditions.js';
export { createZFcpTemplateReconciler, type ZFcpTemplateReconcilerDeps } from './zfcp-template/reconciler.js';
export { createZVolumeReconciler, type ZVolumeReconcilerDeps } from './zvolume/reconciler.js';
export { createZImageReconciler, type ZImageReconcilerDeps } from './zimage/reconciler.js';
export * as fcpLedger from './kit/fcp-ledger/index.js';
export { annotationProgressWriter, toTransferStatus, type ProgressWriter } from './kit/transfer-progress.js';
export { createZGuestPoolReconciler, type ZGuestPoolReconcilerDeps } from './zguest-pool/reconciler.js';
export { mapGuestToPool } from './zguest-pool/guests.js';
export { planPool, type PoolPlan, type PoolPlanInput } from './zguest-pool/plan.js';
export { computePoolStatus } from './zguest-pool/status.js';
export { createZVswitchReconciler, type ZVswitchReconcilerDeps } from './zvswitch/reconciler.js';
export { createZHostReconciler, computeZHostStatus, type ZHostReconcilerDeps } from './zhost/reconciler.js';
export { createFactBoard, type DriftFact, type FactBoard, type HostFacts, type OutageFact } from './kit/facts.js';
export { createOrphanSweeper, DEFAULT_ORPHAN_SCAN_MS, OrphanEventReasons, type OrphanSweeper, type OrphanSweeperDeps } from './zguest/orphan-sweeper.js';

