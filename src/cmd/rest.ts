import { NotFoundError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { createRestApp } from '../rest/index.js';
import type { ZGuest } from '../api/index.js';
import { createInformer, createManager } from '../runtime/index.js';
import { createKubeStore } from '../store/kube/index.js';
import { loadKubeconfig, operatorNamespace } from './kube-common.js';
import { createProcessRegistry } from './metrics-catalogue.js';
import { exitOnSignals } from './signals.js';
import { listenMetrics, type Endpoint } from './kube-endpoints.js';
import { listenerTls, reloadOnChange, type ListenerTlsOptions } from './listener-tls.js';
import { createKubeHosts, DEFAULT_IMAGE_DIR } from './kube-hosts.js';
import { kubeSecretReader } from './kube-secrets.js';
import { requireHosts } from '../hypervisor/index.js';
import { OPERATOR_FIELD_MANAGERS, REST_FIELD_MANAGER } from '../rest/ownership.js';
import { restOperationConfig, type RestOperationOptions } from './rest-operation.js';

export interface RestOptions extends ListenerTlsOptions, RestOperationOptions {
  kubeconfig?: string;
  /** where host credential Secrets and the admin token Secret are read; default: the pod's namespace. */
  namespace?: string;
  /** namespace of ZGuests created through REST; default: the operator's namespace. */
  guestNamespace?: string;
  /** comma-separated namespaces whose ZGuests REST serves; default: every namespace */
  guestNamespaces?: string;
  /** REST requests may change spec fields other field managers own (default: 409 naming the owner) */
  takeOver?: boolean;
  port: string | number;
  bind: string;
  /** Prometheus /metrics on its own address, as the controller's (default "0": off) */
  metricsBindAddress?: string;
  defaultHost: string;
  auth: 'token' | 'none';
  adminTokenFile?: string;
  /** Secret (operator namespace) whose key `token` is the admin token; read once at start. */
  adminTokenSecret?: string;
  /** the controller's --sim-state-dir: live reads of simulated hosts answer from its state files; absent: an empty host in memory */
  simStateDir?: string;
  /** OpenSSH known_hosts trusted for management guests (see host-keys.ts) */
  sshKnownHosts?: string;
  /** --image-dir: local directories /files and file:// exports may use (default /var/lib/zvmsdk/files) */
  imageDirs?: string[];
  maxUploadBytes?: string | number;
  /** lifetime of tokens issued by POST /token */
  tokenValiditySeconds?: string | number;
}

export interface RunningRest {
  url: string;
  metrics?: Endpoint;
  stop(): Promise<void>;
}

/**
 * `zvm-operator rest`: the feilong-compatible REST sidecar over the Kubernetes API. It writes resources
 * and waits for the controller's status; live reads use hypervisors built from ZHosts as the
 * controller builds them, and nothing here writes to z/VM (docs/architecture.md §4). No leader is needed.
 */
export async function startRest(opts: RestOptions, log: Logger = createLogger()): Promise<RunningRest> {
  const operations = restOperationConfig(opts); // a bad value stops the start before anything opens
  const tls = listenerTls(opts, [opts.bind], log);
  const kubeconfig = loadKubeconfig(opts.kubeconfig);
  const namespace = operatorNamespace(opts.namespace);
  // REST writes under its own field manager and, unless told to take over, leaves GitOps-managed fields alone
  const guardFieldOwners = opts.takeOver ? undefined : { allowedManagers: OPERATOR_FIELD_MANAGERS };
  const store = createKubeStore({ kubeconfig, log, fieldManager: REST_FIELD_MANAGER, guardFieldOwners });
  const guestNamespaces = opts.guestNamespaces?.split(',').map((ns) => ns.trim()).filter(Boolean);
  const readSecret = kubeSecretReader(kubeconfig, namespace);
  const imageDirs = opts.imageDirs ?? [DEFAULT_IMAGE_DIR];
  const registry = createProcessRegistry('rest');
  const hosts = createKubeHosts({
    knownHostsFile: opts.sshKnownHosts, store, log, readSecret, simStateDir: opts.simStateDir, simStateView: true, imageDirs, registry });
  // guests of every namespace (REST filters the served ones): look-ups by userid read its index, not the
  // apiserver (issue 23). Not awaited: REST answers without an apiserver (its probe, TLS), from the store until the first list
  const guests = createInformer<ZGuest>({ store, kind: 'ZGuest', log });
  const manager = createManager({ log, runnables: [hosts.informer, guests] });
  const done = manager.start().catch((err: unknown) => log.error({ err }, 'host watch stopped'));

  let adminToken: string | undefined;
  if (opts.auth === 'token' && opts.adminTokenSecret && !opts.adminTokenFile) {
    adminToken = (await readSecret(opts.adminTokenSecret)).token;
    if (!adminToken) throw new NotFoundError(`Secret ${namespace}/${opts.adminTokenSecret} has no key token`);
  }
  const app = createRestApp({
    store,
    log,
    registry,
    hypervisors: requireHosts(hosts),
    guestIndex: guests,
    config: {
      namespace: opts.guestNamespace ?? namespace,
      ...(guestNamespaces?.length ? { guestNamespaces } : {}),
      defaultHost: opts.defaultHost,
      ...operations,
      auth: {
        enabled: opts.auth === 'token', adminTokenFile: opts.adminTokenFile, adminToken,
        ...(opts.tokenValiditySeconds ? { tokenValiditySeconds: Number(opts.tokenValiditySeconds) } : {}),
      },
      imageDirs,
      ...(opts.maxUploadBytes ? { maxUploadBytes: Number(opts.maxUploadBytes) } : {}),
    },
    https: tls?.https,
  });
  if (tls) reloadOnChange(app, tls.files, log);
  const url = await app.listen({ port: Number(opts.port), host: opts.bind });
  // the admin listener: /metrics and the probes, open even with token auth (GET / on the REST port is not)
  const metrics = await listenMetrics(opts.metricsBindAddress ?? '0', registry, log, { probes: () => app.server.listening });
  log.info({ url, namespace, guestNamespace: opts.guestNamespace ?? namespace, guestNamespaces: guestNamespaces ?? 'all', takeOver: Boolean(opts.takeOver) }, 'REST sidecar ready');
  if (metrics) log.info({ metrics: metrics.url }, 'REST metrics listening');
  let stopping: Promise<void> | undefined;
  async function shutdown(): Promise<void> {
    await app.close();
    await metrics?.close();
    await manager.stop();
    await done;
    await hosts.close();
    await store.close();
  }
  return { url, metrics, stop: () => (stopping ??= shutdown()) };
}

export async function runRest(opts: RestOptions): Promise<void> {
  const log = createLogger();
  const rest = await startRest(opts, log);
  exitOnSignals(rest.stop, log);
}
