import { collectDefaultMetrics, Registry } from 'prom-client';
import { createLogger, type Logger } from '../log.js';
import { createLeaseLeaderElector, createManager, defaultLeaderIdentity, type Runnable } from '../runtime/index.js';
import { createKubeEventRecorder, createKubeEventSink } from '../runtime/kube-event-recorder.js';
import { createKubeLeaseApi } from '../runtime/kube-lease.js';
import { createKubeStore } from '../store/kube/index.js';
import { loadKubeconfig, operatorNamespace, parseDuration } from './kube-common.js';
import { exitOnSignals } from './signals.js';
import { listenMetrics, listenProbes, type Endpoint } from './kube-endpoints.js';
import { createKubeHosts, DEFAULT_IMAGE_DIR, kubeSecretReader } from './kube-hosts.js';
import { createOperator, type Operator } from './operator.js';

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
  /** how often each host's guests are compared with their status (e.g. 15s); default DEFAULT_DRIFT_MS */
  driftPeriod?: string;
}

export interface RunningController {
  identity: string;
  probes?: Endpoint;
  metrics?: Endpoint;
  /** settles when the manager stops: rejects on a lost lease or a failed runnable. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** The leader runnables, wrapped so that the elector can wait until they have all returned. */
function trackLeaderWork(runnables: Runnable[]): { runnables: Runnable[]; stopped: () => Promise<void> } {
  let active = 0;
  let waiters: Array<() => void> = [];
  const wrapped = runnables.map((r): Runnable => {
    if (!r.needsLeaderElection) return r;
    return {
      name: r.name,
      needsLeaderElection: true,
      async start(signal) {
        active += 1;
        try {
          await r.start(signal);
        } finally {
          active -= 1;
          if (active === 0) for (const wake of waiters.splice(0)) wake();
        }
      },
    };
  });
  const stopped = (): Promise<void> => (active === 0 ? Promise.resolve() : new Promise((resolve) => { waiters = [...waiters, resolve]; }));
  return { runnables: wrapped, stopped };
}

/**
 * `zvm-operator controller`: the controllers against a real apiserver, leader-elected on a Lease;
 * hosts come from ZHost resources; probes, metrics and core/v1 Events as controller-runtime has them.
 */
export async function startController(opts: ControllerOptions, log: Logger = createLogger()): Promise<RunningController> {
  const kubeconfig = loadKubeconfig(opts.kubeconfig);
  const namespace = operatorNamespace(opts.namespace);
  const identity = defaultLeaderIdentity();
  const store = createKubeStore({ kubeconfig, log });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const events = createKubeEventRecorder({ sink: createKubeEventSink(kubeconfig), instance: identity, log });

  // hosts are built before the operator that uses them; a ready host wakes the operator's guests
  const late: { operator?: Operator } = {};
  const hosts = createKubeHosts({
    knownHostsFile: opts.sshKnownHosts,
    store, log, registry, simStateDir: opts.simStateDir,
    imageDirs: opts.imageDirs ?? [DEFAULT_IMAGE_DIR],
    readSecret: kubeSecretReader(kubeconfig, namespace),
    onHostReady: (name) => late.operator?.wakeHost(name),
  });
  const operator = createOperator({
    store, hosts, events, registry, log, concurrency: Number(opts.concurrency), pollMs: opts.pollMs ? Number(opts.pollMs) : undefined,
    driftMs: opts.driftPeriod ? parseDuration(opts.driftPeriod) : undefined,
  });
  late.operator = operator;
  const leaderWork = trackLeaderWork(operator.runnables);
  const elector = opts.leaderElect
    ? createLeaseLeaderElector({
        lease: createKubeLeaseApi({ kubeconfig, namespace, name: opts.leaderElectionId }),
        identity,
        leaseDurationMs: parseDuration(opts.leaseDuration),
        renewDeadlineMs: parseDuration(opts.renewDeadline),
        retryPeriodMs: parseDuration(opts.retryPeriod),
        leaderWorkStopped: leaderWork.stopped,
        registry,
        log,
      })
    : undefined;
  const manager = createManager({ log, runnables: [hosts.informer, ...leaderWork.runnables], elector });
  const ready = (): boolean => hosts.informer.hasSynced() && operator.hasSynced();
  const probes = await listenProbes(opts.healthProbeBindAddress, ready, log);
  const metrics = await listenMetrics(opts.metricsBindAddress, registry, log);
  const done = manager.start();
  log.info({ identity, namespace, leaderElect: opts.leaderElect, probes: probes?.url, metrics: metrics?.url }, 'controller started');

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
