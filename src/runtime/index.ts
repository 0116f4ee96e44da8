/** The controller runtime's public surface (docs/code-conventions.md §2): import from here, not from its files. */
export { done, requeueAfter, TerminalError } from './result.js';
export type { Result, Reconciler, KeyMapper } from './result.js';
export type { EventRecorder, EventType } from './events.js';
export { createMemoryEventRecorder } from './memory-event-recorder.js';
export type { MemoryEventRecorder, MemoryEventRecorderOptions, RecordedEvent } from './memory-event-recorder.js';
export { createWorkQueue, backoffDelay } from './work-queue.js';
export type { WorkQueue, WorkQueueOptions, WorkHandler, WorkQueueStats } from './work-queue.js';
export { createInformer } from './informer.js';
export type { Informer, InformerHandler, InformerOptions } from './informer.js';
export { createController, isTerminal } from './controller.js';
export type { Controller, ControllerOptions, WatchSource } from './controller.js';
export { enqueueForObject, enqueueMapped } from './event-handlers.js';
export type { KeySink } from './event-handlers.js';
export { createMetrics, noopQueueMetrics, noopControllerMetrics } from './metrics.js';
export type { RuntimeMetrics, WorkQueueMetrics, ControllerMetrics, ReconcileOutcome } from './metrics.js';
export { createManager } from './manager.js';
export type { Manager, ManagerOptions, LeaderElector, LeaderCallbacks } from './manager.js';
export type { Runnable } from './runnable.js';
export { currentReconcile, reconcileLog } from './reconcile-context.js';
export type { ReconcileContext } from './reconcile-context.js';
export { realClock, sleep, MAX_TIMER_MS } from './clock.js';
export type { Clock } from './clock.js';
export { createLeaseLeaderElector, defaultLeaderIdentity, microTime } from './leader-election.js';
export type { LeaseApi, LeaseRecord, VersionedLease, LeaseElectorOptions, LeaseLeaderElector } from './leader-election.js';
// The Kubernetes adapters (kube-lease.ts, kube-event-recorder.ts, kube-request.ts) are imported from
// their own files: re-exporting them here made every process load @kubernetes/client-node (~70 MB
// of RSS, bench/ figure 5), standalone mode included, which never talks to an API server.
