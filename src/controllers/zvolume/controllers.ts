import type { Resource, ZFcpTemplate, ZVolume } from '../../api/index.js';
import type { EventPredicate } from '../../runtime/event-handlers.js';
import { createController, createInformer, type Runnable } from '../../runtime/index.js';
import { DEFAULT_RESYNC_MS, guarded, type ControllerGroupDeps } from '../wiring.js';
import { createZFcpTemplateReconciler } from '../zfcp-template/reconciler.js';
import { createZVolumeReconciler } from './reconciler.js';

export interface VolumeControllersDeps extends ControllerGroupDeps {
  /** how often templates sync FCP states with their host */
  fcpSyncMs?: number;
}

/** Spec, deletion and finalizer changes; ledger (status) writes by others do not need a reconcile. */
const specChanges: EventPredicate = {
  update: (old: Resource, obj: Resource) =>
    old.metadata.generation !== obj.metadata.generation
    || old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp
    || (old.metadata.finalizers ?? []).join() !== (obj.metadata.finalizers ?? []).join(),
};

/** Informers and controllers of ZFcpTemplate and ZVolume, as runnables for the operator's manager. */
export function createVolumeControllers(deps: VolumeControllersDeps): Runnable[] {
  const resyncMs = deps.resyncMs ?? DEFAULT_RESYNC_MS;
  const templates = createInformer<ZFcpTemplate>({ store: deps.store, kind: 'ZFcpTemplate', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  const volumes = createInformer<ZVolume>({ store: deps.store, kind: 'ZVolume', resyncMs, labelSelector: deps.labelSelector, log: deps.log });
  const templateController = createController({
    name: 'zfcptemplate',
    reconciler: guarded(deps, createZFcpTemplateReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log, syncMs: deps.fcpSyncMs })),
    informer: templates,
    predicate: specChanges,
    concurrency: 2,
    metrics: deps.metrics,
    log: deps.log,
  });
  const volumeController = createController({
    name: 'zvolume',
    reconciler: guarded(deps, createZVolumeReconciler({ store: deps.store, hypervisors: deps.hypervisors, events: deps.events, log: deps.log })),
    informer: volumes,
    predicate: specChanges,
    // attach/detach of one guest change the same ledger rows; few at a time keeps conflicts rare
    concurrency: 4,
    metrics: deps.metrics,
    log: deps.log,
  });
  return [templates, volumes, templateController, volumeController];
}
