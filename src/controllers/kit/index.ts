/** What every controller folder shares: finalizers, status writes, host lookup, logging, event reasons, predicates. */
export type { HostReconcilerDeps } from './deps.js';
export { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
export { DEFAULT_HOST_RETRY_MS, HOST_NOT_FOUND, hostNotKnown, lookupHost } from './host.js';
export { reconcileLogger } from './log.js';
export { specChanges } from './predicates.js';
export { reportProblem, writeStatusIfChanged, type StatusRebase } from './status.js';
export { HYPERVISOR_ERROR } from './reasons.js';
export { createFactBoard, type DriftFact, type FactBoard, type HostFacts, type OutageFact } from './facts.js';
export { isDeletedForMove, isPaused, type Cluster } from './cluster-api.js';
