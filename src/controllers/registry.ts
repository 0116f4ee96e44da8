/**
 * Every kind's controller, one row each, in start order. The operator of hosts (cmd/operator.ts,
 * once per held host when sharded) and the unassigned operator build their controllers from this
 * table through createControllerSet (wiring.ts). A new kind: its folder, and one row here.
 */
import type { ZFcpTemplate, ZGuest, ZVolume } from '../api/index.js';
import { specChanges } from './kit/predicates.js';
import type { ControllerRow } from './wiring.js';
import { createZFcpTemplateReconciler } from './zfcp-template/reconciler.js';
import { mapVolumeToTemplates } from './zfcp-template/watches.js';
import { createZGuestActionReconciler } from './zguest-action/reconciler.js';
import { mapGuestToPool } from './zguest-pool/guests.js';
import { createZGuestPoolReconciler } from './zguest-pool/reconciler.js';
import { zguestParts } from './zguest/wiring.js';
import { createZGuestClassReconciler } from './zguest-class/reconciler.js';
import { createZHostReconciler } from './zhost/reconciler.js';
import { createZImageReconciler } from './zimage/reconciler.js';
import { createZVolumeReconciler } from './zvolume/reconciler.js';
import { mapTemplateToVolumes } from './zvolume/watches.js';
import { createZVswitchReconciler } from './zvswitch/reconciler.js';
import { createZVMClusterReconciler } from './zvm-cluster/reconciler.js';
import { createZVMMachineReconciler, mapGuestToMachine } from './zvm-machine/reconciler.js';
import { withWatchFilter } from './zvm-machine/watch-filter.js';

export const CONTROLLERS: readonly ControllerRow[] = [
  // one-off guest operations (live migration): run once, then garbage-collected after their TTL
  { kind: 'ZGuestAction', name: 'zguestaction', concurrency: 4, unassigned: { concurrency: 1 }, build: ({ deps }) => ({ reconciler: createZGuestActionReconciler(deps) }) },
  { kind: 'ZGuest', name: 'zguest', concurrency: 8, tunable: true, unassigned: { concurrency: 2 }, build: zguestParts },
  // each class revision recorded before guests and pools take it; no host: with sharding, the replica holding the unassigned Lease
  {
    kind: 'ZGuestClass', name: 'zguestclass', concurrency: 1, hostless: true, unassigned: { concurrency: 1 },
    build: ({ deps }) => ({ reconciler: createZGuestClassReconciler(deps), predicate: specChanges }),
  },
  // pools write ZGuests only; with sharding a pool runs in the replica holding its first host
  {
    kind: 'ZGuestPool', name: 'zguestpool', concurrency: 2,
    build: ({ deps, informer }) => ({
      reconciler: createZGuestPoolReconciler({ ...deps, pollMs: deps.hostLayout?.pollMs }),
      watches: [{ informer: informer<ZGuest>('ZGuest'), map: mapGuestToPool }],
    }),
  },
  // the FCP ledger's one author: it counts the connections volumes hold in their status
  {
    kind: 'ZFcpTemplate', name: 'zfcptemplate', concurrency: 2, unassigned: { concurrency: 2 },
    build: ({ deps, informer }) => ({
      reconciler: createZFcpTemplateReconciler({ ...deps, volumes: () => informer<ZVolume>('ZVolume').list() }),
      predicate: specChanges,
      watches: [{ informer: informer<ZVolume>('ZVolume'), map: mapVolumeToTemplates(() => informer<ZFcpTemplate>('ZFcpTemplate').list()) }],
    }),
  },
  // a volume takes its connections, then waits for the ledger to show them before it dedicates
  {
    kind: 'ZVolume', name: 'zvolume', concurrency: 4, unassigned: { concurrency: 4 },
    build: ({ deps, informer }) => ({
      reconciler: createZVolumeReconciler(deps),
      predicate: specChanges,
      watches: [{ informer: informer<ZFcpTemplate>('ZFcpTemplate'), map: mapTemplateToVolumes(() => informer<ZVolume>('ZVolume').list()) }],
    }),
  },
  // imports are long and stream through one SSH connection per host; a few at a time
  { kind: 'ZImage', name: 'zimage', concurrency: 4, unassigned: { concurrency: 4 }, build: ({ deps }) => ({ reconciler: createZImageReconciler(deps) }) },
  { kind: 'ZVswitch', name: 'zvswitch', concurrency: 4, unassigned: { concurrency: 1 }, build: ({ deps }) => ({ reconciler: createZVswitchReconciler(deps) }) },
  // what the drift detector, orphan sweeper and shard coordinator record of a host wakes its reconcile
  {
    kind: 'ZHost', name: 'zhost', concurrency: 2,
    build: ({ deps }) => ({
      reconciler: createZHostReconciler({ ...deps, facts: deps.hostLayout?.facts }),
      companions: (controller) => {
        deps.hostLayout?.facts?.onHostChange((name) => controller.enqueue({ name }));
        return [];
      },
    }),
  },
];

/**
 * The Cluster API provider (--capi): ZVMCluster and ZVMMachine. The labeler gives a ZVMMachine the host its
 * guest will use once its Machine is known (api/zvm-machine.ts machineHost), so the host's replica defines
 * the guest, punches the bootstrap data and starts it; a machine placed on a host without a ZHost is
 * reported by the unassigned layout. They read Cluster API's Machines and Clusters and the bootstrap Secrets.
 */
export const CAPI_CONTROLLERS: readonly ControllerRow[] = [
  {
    kind: 'ZVMCluster', name: 'zvmcluster', concurrency: 2,
    build: ({ deps }) => ({ reconciler: withWatchFilter(createZVMClusterReconciler({ store: deps.store, pollMs: deps.hostLayout?.pollMs }), deps) }),
  },
  {
    kind: 'ZVMMachine', name: 'zvmmachine', concurrency: 4, unassigned: { concurrency: 1 },
    build: ({ deps, informer }) => ({
      reconciler: withWatchFilter(createZVMMachineReconciler({ ...deps, pollMs: deps.hostLayout?.pollMs }), deps),
      watches: [{ informer: informer<ZGuest>('ZGuest'), map: mapGuestToMachine }],
    }),
  },
];

/** The rows a process runs: ours, and the Cluster API provider's when asked for. */
export function controllerRows(capi: boolean | undefined): readonly ControllerRow[] {
  return capi ? [...CONTROLLERS, ...CAPI_CONTROLLERS] : CONTROLLERS;
}
