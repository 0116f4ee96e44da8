import { createLogger, type Logger } from '../log.js';
import { createManager, defaultLeaderIdentity, type Runnable } from '../runtime/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { STORAGE_VERSION } from '../api/index.js';
import { createKubeLeaseApi } from '../runtime/kube-lease.js';
import { createKubeEventRecorder, createKubeEventSink } from '../runtime/kube-event-recorder.js';
import { createKubeShardLeaseStore, createShardCoordinator, createShardMetrics, type ShardCoordinator } from '../runtime/sharding/index.js';
import { createKubeStore, migrateStoredVersions } from '../store/kube/index.js';
import { loadKubeconfig, operatorNamespace, parseDuration } from './kube-common.js';
import { createProcessRegistry } from './metrics-catalogue.js';
import { exitOnSignals } from './signals.js';
import { listenMetrics, listenProbes, type Endpoint } from './kube-endpoints.js';
import { createKubeHosts, DEFAULT_IMAGE_DIR } from './kube-hosts.js';
import { kubeSecretReader } from './kube-secrets.js';
import type { HttpSourcePolicy } from '../hypervisor/index.js';
import { createOperator, type Operator } from './operator.js';
import { createShardedOperator } from './sharded-operator.js';
import { createUnassignedRunnable, UNASSIGNED } from './unassigned-operator.js';

export interface ControllerOptions {
  kubeconfig?: string;
  /** where the Lease lives and host credential Secrets are read; default: the pod's namespace. */
  namespace?: string;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  leaderElect: boolean;
  leaderElectionId: string;
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
  simStateDir: string;
  /** OpenSSH known_hosts trusted for management guests (see host-keys.ts) */
  sshKnownHosts?: string;
  concurrency: string | number;
  /** controller poll while a transition is under way */
  pollMs?: string | number;
  /** stop: how long leader work may take to finish */
  gracePeriod: string;
  /** --image-dir: local directories file:// image imports may read (default /var/lib/zvmsdk/files) */
  imageDirs?: string[];
  /** size cap, redirect limit and host allow-list of http(s) image imports */
  imageHttp?: HttpSourcePolicy;
  /** how often each host's guests are compared with their status (e.g. 15s); default DEFAULT_DRIFT_MS */
  driftPeriod?: string;
  /** how long a host's SMAPI may give no answer before it is unreachable (e.g. 10s); default DEFAULT_OUTAGE_GRACE_MS */
  hostUnreachableGrace?: string;
  /** SMAPI connections start from this local address */
  smapiLocalAddress?: string;
  /** --capi: also run the Cluster API infrastructure provider (ZVMCluster, ZVMMachine) */
  capi?: boolean;
  /** --watch-filter: the provider reconciles only objects labelled cluster.x-k8s.io/watch-filter=<value> */
  watchFilter?: string;
}

export interface RunningController {
  identity: string;
  probes?: Endpoint;
  metrics?: Endpoint;
  /** settles when the manager stops: rejects on a lost lease or a failed runnable. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * `zvm-operator controller`: the controllers against a real apiserver, sharded per host on Leases
 * (runtime/sharding: any number of replicas share the hosts; --no-leader-elect: one replica holds
 * every host without Leases); hosts come from ZHost resources; probes, metrics and core/v1 Events
 * as controller-runtime has them.
 */
export async function startController(opts: ControllerOptions, log: Logger = createLogger()): Promise<RunningController> {
  const kubeconfig = loadKubeconfig(opts.kubeconfig);
  const namespace = operatorNamespace(opts.namespace);
  const identity = defaultLeaderIdentity();
  const store = createKubeStore({ kubeconfig, log });
  const registry = createProcessRegistry('controller');
  const events = createKubeEventRecorder({ sink: createKubeEventSink(kubeconfig), instance: identity, registry, log });
  const tuning = {
    concurrency: Number(opts.concurrency), pollMs: opts.pollMs ? Number(opts.pollMs) : undefined,
    driftMs: opts.driftPeriod ? parseDuration(opts.driftPeriod) : undefined,
    outageGraceMs: opts.hostUnreachableGrace ? parseDuration(opts.hostUnreachableGrace) : undefined,
    capi: opts.capi ? { watchFilter: opts.watchFilter || undefined } : undefined,
  };

  // hosts are built before the operator that uses them; a ready host wakes the operator's guests
  const late: { wake?: (name: string) => void; coordinator?: ShardCoordinator } = {};
  const sharded = opts.leaderElect;
  const hosts = createKubeHosts({
    knownHostsFile: opts.sshKnownHosts,
    store, log, registry, simStateDir: opts.simStateDir,
    imageDirs: opts.imageDirs ?? [DEFAULT_IMAGE_DIR],
    imageHttp: opts.imageHttp,
    readSecret: kubeSecretReader(kubeconfig, namespace),
    onHostReady: (name) => late.wake?.(name),
    localAddress: opts.smapiLocalAddress,
    // sharded: connect only to held hosts, and refuse every request once a host's renew deadline passed
    ...(sharded ? { wanted: (name: string) => late.coordinator?.holds(name) === true, gate: (name: string) => late.coordinator?.gate(name) } : {}),
  });
  let runnables: Runnable[];
  let synced: () => boolean;
  if (sharded) {
    const shardMetrics = createShardMetrics(registry);
    const shards = createShardedOperator({ store, hosts, events, registry, shardMetrics, log, ...tuning }, () => late.coordinator);
    const coordinator = createShardCoordinator({
      leases: createKubeShardLeaseStore({ kubeconfig, namespace, group: opts.leaderElectionId }),
      identity,
      hosts: () => hosts.informer.list().map((h) => h.metadata.name),
      hostsSynced: () => hosts.informer.hasSynced(),
      work: shards.runHost,
      leaseDurationMs: parseDuration(opts.leaseDuration),
      renewDeadlineMs: parseDuration(opts.renewDeadline),
      retryPeriodMs: parseDuration(opts.retryPeriod),
      metrics: shardMetrics,
      log,
    });
    late.coordinator = coordinator;
    late.wake = shards.wakeHost;
    // resources naming a host without a ZHost: one replica reports them (unassigned-operator.ts)
    const unassigned = createUnassignedRunnable({
      lease: createKubeLeaseApi({ kubeconfig, namespace, name: `${opts.leaderElectionId}-unassigned` }),
      identity, registry, log,
      leaseDurationMs: parseDuration(opts.leaseDuration), renewDeadlineMs: parseDuration(opts.renewDeadline), retryPeriodMs: parseDuration(opts.retryPeriod),
    }, { store, hosts: hosts.informer, events, log, metrics: shards.metricsFor(UNASSIGNED), capi: tuning.capi });
    runnables = [shards.labeler, { name: 'sharding', start: (signal) => coordinator.run(signal) }, unassigned];
    synced = shards.hasSynced;
  } else {
    // one replica holding every host without Leases, as before sharding
    const operator: Operator = createOperator({ store, hosts, events, registry, log, ...tuning });
    late.wake = operator.wakeHost;
    runnables = operator.runnables;
    synced = operator.hasSynced;
  }
  const manager = createManager({ log, runnables: [hosts.informer, storageMigrationRunnable(kubeconfig, log), ...runnables] });
  const ready = (): boolean => hosts.informer.hasSynced() && synced();
  const probes = await listenProbes(opts.healthProbeBindAddress, ready, log);
  const metrics = await listenMetrics(opts.metricsBindAddress, registry, log);
  const done = manager.start();
  log.info({ identity, namespace, sharded, probes: probes?.url, metrics: metrics?.url }, 'controller started');

  let stopping: Promise<void> | undefined;
  async function shutdown(): Promise<void> {
    try {
      await manager.stop(parseDuration(opts.gracePeriod));
    } finally {
      await done.catch(() => undefined);
      await Promise.all([probes?.close(), metrics?.close()]);
      await events.close();
      await hosts.close();
      await store.close();
    }
  }
  return { identity, probes, metrics, done, stop: () => (stopping ??= shutdown()) };
}

export async function runController(opts: ControllerOptions): Promise<void> {
  const log = createLogger();
  const controller = await startController(opts, log);
  exitOnSignals(controller.stop, log);
  controller.done.catch(async (err: unknown) => {
    // A lost lease or a failed runnable: exit so that Kubernetes restarts the pod fresh.
    log.error({ err }, 'controller manager failed; exiting');
    await controller.stop().catch(() => undefined);
    process.exit(1);
  });
}

/**
 * The storage-version migration (store/kube/storage-version.ts) once at start-up, on every replica. A
 * failure (RBAC of an older release, the apiserver away) is logged and left for the next start: the
 * objects stay served at every version meanwhile.
 */
function storageMigrationRunnable(kubeconfig: KubeConfig, log: Logger): Runnable {
  return {
    name: 'storage-version-migration',
    async start(signal) {
      try {
        await migrateStoredVersions(kubeconfig, log, signal);
      } catch (err) {
        if (!signal.aborted) log.error({ err }, `moving the stored objects to ${STORAGE_VERSION} failed; it runs again at the next start`);
      }
    },
  };
}
