import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Registry } from 'prom-client';
import { API_VERSION, DEFAULT_HOST, type ZHost } from '../api/index.js';
import { InvalidInputError, ZvmError } from '../errors.js';
import {
  createHostRegistry, createMgmtOps, createSmapiHypervisor, type HostRegistry, type HttpSourcePolicy, type MgmtOps,
  requireHosts,
} from '../hypervisor/index.js';
import { createLogger, type Logger } from '../log.js';
import { createRestApp, DEFAULT_REST_CONFIG } from '../rest/index.js';
import { createManager, createMemoryEventRecorder } from '../runtime/index.js';
import type { StateStore } from '../store/port.js';
import { createAdminServer } from './admin-server.js';
import { planManifest } from './plan-manifest.js';
import { restOperationConfig, type RestOperationOptions } from './rest-operation.js';
import { parseDuration } from './duration.js';
import { listenerTls, reloadOnChange, type ListenerTlsOptions } from './listener-tls.js';
import { createOperator } from './operator.js';
import { openStateStore, type StateStoreKind } from './state-store.js';
import { withBuiltInHost } from './built-in-host.js';
import { createProcessRegistry } from './metrics-catalogue.js';
import { exitOnSignals } from './signals.js';
import { lockStateDir, type StateLock } from './state-lock.js';
import { connectSimulatedHost, type SimulatedHost } from './simulated-host.js';
import { createStandaloneHosts } from './standalone-hosts.js';
import type { SimConfig } from '../hypervisor/sim/index.js';

export interface StandaloneOptions extends ListenerTlsOptions, RestOperationOptions {
  port: string | number;
  bind: string;
  adminPort: string | number;
  /** address of the admin API (resource API, probes, metrics); loopback unless asked, whatever `bind` is */
  adminBind?: string;
  /** lifetime of tokens issued by POST /token */
  tokenValiditySeconds?: string | number;
  stateDir: string;
  auth: 'token' | 'none';
  adminTokenFile?: string;
  simLatencyMs?: string | number;
  smapiTcp?: boolean;
  /** host:port of a simulator running as its own `zvm-operator sim` process (instead of starting one) */
  simAddress?: string;
  simUserid?: string;
  simPassword?: string;
  namespace: string;
  /** controller poll while a transition is under way */
  pollMs?: number;
  /** local directories that file:// image imports and exports and REST /files may use (default <state-dir>/files) */
  imageDirs?: string[];
  /** size cap, redirect limit and host allow-list of http(s) image imports */
  imageHttp?: HttpSourcePolicy;
  /** PUT /files size cap in bytes */
  maxUploadBytes?: number;
  /** configuration of the in-process simulated host beyond its defaults (tests: a given FCP inventory) */
  simConfig?: Partial<SimConfig>;
  /** how often the host's guests are compared with their status (e.g. 15s); default DEFAULT_DRIFT_MS */
  driftPeriod?: string;
  /** how long the built-in host's facts and disk-pool figures are reused between writes (e.g. 5s); default DEFAULT_FACTS_PERIOD_MS */
  hostFactsPeriod?: string;
  /** how long a host's SMAPI may give no answer before it is unreachable (e.g. 10s) */
  hostUnreachableGrace?: string;
  /** state store: sqlite (default, <state-dir>/state.db) or json (the old <state-dir>/store.json) */
  store?: StateStoreKind;
  /** credentials of extra ZHosts: one directory per Secret, one file per key (default <state-dir>/secrets) */
  secretsDir?: string;
  /** the state directory's lock, when the caller took it before loading this module (main.ts: a second process answers at once) */
  lock?: StateLock;
}

export interface Standalone {
  restUrl: string;
  adminUrl: string;
  store: StateStore;
  hosts: HostRegistry;
  /** SMAPI calls per function the in-process simulated host answered ({} over --smapi-tcp) */
  simCallCounts(): Record<string, number>;
  stop(): Promise<void>;
}

/** The admin API can write every resource: it stays on loopback unless --admin-bind says otherwise. */
const DEFAULT_ADMIN_BIND = '127.0.0.1';

async function ensureDefaultHost(store: StateStore): Promise<void> {
  if (await store.get('ZHost', { name: DEFAULT_HOST })) return;
  const host: ZHost = { apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: DEFAULT_HOST }, spec: { simulated: true } };
  await store.create(host);
}

/** Everything in one process (docs/architecture.md §1): embedded store, controllers, REST, simulated host. */
export async function startStandalone(opts: StandaloneOptions, log: Logger = createLogger()): Promise<Standalone> {
  const operations = restOperationConfig(opts); // a bad value stops the start before anything opens
  const adminBind = opts.adminBind ?? DEFAULT_ADMIN_BIND;
  const tls = listenerTls(opts, [opts.bind, adminBind], log);
  const lock = opts.lock ?? lockStateDir(opts.stateDir); // before anything in the directory is opened
  try {
    return await startLocked(opts, log, lock, operations, adminBind, tls);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(
  opts: StandaloneOptions, log: Logger, lock: StateLock, operations: ReturnType<typeof restOperationConfig>, adminBind: string, tls: ReturnType<typeof listenerTls>,
): Promise<Standalone> {
  const store = openStateStore(opts.stateDir, opts.store, log);
  await ensureDefaultHost(store);

  const registry = createProcessRegistry('standalone');
  const sim = await connectSimulatedHost({
    stateFile: join(opts.stateDir, 'sim.db'), latencyMs: Number(opts.simLatencyMs ?? 0), tcp: Boolean(opts.smapiTcp), log, mgmtDir: join(opts.stateDir, 'mgmt'), simConfig: opts.simConfig,
    address: simAddress(opts), metrics: { registry, host: DEFAULT_HOST },
  });
  const builtIn = createHostRegistry();
  builtIn.register(DEFAULT_HOST, createSmapiHypervisor({
    hostName: DEFAULT_HOST, caller: sim.caller, log, mgmt: simulatedMgmt(sim, opts, log, registry), connection: sim.connection,
    factsPeriodMs: opts.hostFactsPeriod ? parseDuration(opts.hostFactsPeriod) : undefined,
  }));
  // other ZHosts (simulated, or SMAPI servers such as `zvm-operator sim` processes): this process holds them all
  const late: { wake?: (name: string) => void } = {};
  const hosts = createStandaloneHosts({
    builtIn, builtInName: DEFAULT_HOST, store, stateDir: opts.stateDir, secretsDir: opts.secretsDir ?? join(opts.stateDir, 'secrets'), log, onHostReady: (name) => late.wake?.(name),
    imageDirs: imageDirsOf(opts), registry,
  });

  const events = createMemoryEventRecorder({ log });
  const operator = createOperator({
    store, hosts, events, registry, log, pollMs: opts.pollMs,
    driftMs: opts.driftPeriod ? parseDuration(opts.driftPeriod) : undefined,
    outageGraceMs: opts.hostUnreachableGrace ? parseDuration(opts.hostUnreachableGrace) : undefined,
  });
  late.wake = operator.wakeHost;
  const manager = createManager({ log, runnables: [hosts.more.informer, ...operator.runnables] });
  const managerDone = manager.start().catch((err: unknown) => log.error({ err }, 'controllers stopped'));

  const auth = { enabled: opts.auth === 'token', adminTokenFile: opts.adminTokenFile };
  const rest = createRestApp({
    store,
    log,
    registry,
    guestIndex: operator.guests,
    hypervisors: requireHosts(hosts),
    config: {
      namespace: opts.namespace,
      defaultHost: DEFAULT_HOST,
      ...operations,
      auth: { ...auth, ...(opts.tokenValiditySeconds ? { tokenValiditySeconds: Number(opts.tokenValiditySeconds) } : {}) },
      imageDirs: imageDirsOf(opts),
      ...(opts.maxUploadBytes ? { maxUploadBytes: Number(opts.maxUploadBytes) } : {}),
    },
    https: tls?.https,
  });
  const files = { imageDirs: imageDirsOf(opts), maxUploadBytes: opts.maxUploadBytes ? Number(opts.maxUploadBytes) : DEFAULT_REST_CONFIG.maxUploadBytes };
  // what the admin API writes: the built-in host's connection is the simulator's, never its spec's
  const admitted = withBuiltInHost(store, DEFAULT_HOST);
  const plan = (body: unknown) => planManifest({ store, hypervisors: requireHosts(hosts), log }, body);
  const admin = createAdminServer({ store: admitted, registry, log, isReady: operator.hasSynced, auth, events, https: tls?.https, hosts, files, plan });
  if (tls) for (const app of [rest, admin]) reloadOnChange(app, tls.files, log);
  const restUrl = await listenOn(rest, '--port', Number(opts.port), opts.bind);
  const adminUrl = await listenOn(admin, '--admin-port', Number(opts.adminPort), adminBind);
  lock.announce({ restUrl, adminUrl });
  log.info({ restUrl, adminUrl, stateDir: opts.stateDir, smapiTcp: Boolean(opts.smapiTcp) }, 'standalone mode ready');

  return {
    restUrl,
    adminUrl,
    store,
    hosts,
    simCallCounts: () => sim.callCounts?.() ?? {},
    async stop() {
      await rest.close();
      await admin.close();
      await manager.stop();
      await managerDone;
      await hosts.close();
      await sim.close();
      await store.close();
      lock.release();
    },
  };
}

/** listen(), with a port in use named by its flag: the person at the keyboard knows the flag, not the errno. */
async function listenOn(app: { listen(o: { port: number; host: string }): Promise<string> }, flag: string, port: number, host: string): Promise<string> {
  try {
    return await app.listen({ port, host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ZvmError('UNAVAILABLE', `${flag} ${port}: ${host}:${port} is already in use by another process; stop it, or choose another ${flag}`, { cause: err });
    if (code === 'EADDRNOTAVAIL') throw new ZvmError('UNAVAILABLE', `${flag} ${port}: ${host} is not an address of this machine`, { cause: err });
    throw err;
  }
}

/** The configured image directories (created when missing); default `<state-dir>/files`. */
function imageDirsOf(opts: StandaloneOptions): string[] {
  const dirs = opts.imageDirs && opts.imageDirs.length > 0 ? opts.imageDirs.map((d) => resolve(d)) : [resolve(opts.stateDir, 'files')];
  for (const d of dirs) mkdirSync(d, { recursive: true });
  return dirs;
}

function simAddress(opts: StandaloneOptions): { host: string; port: number; userid: string; password: string } | undefined {
  if (!opts.simAddress) return undefined;
  const m = /^(.+):(\d+)$/.exec(opts.simAddress);
  if (!m) throw new InvalidInputError(`--sim-address must be host:port, not ${opts.simAddress}`);
  return { host: m[1]!, port: Number(m[2]), userid: opts.simUserid ?? 'MAINT', password: opts.simPassword ?? 'MAINT' };
}

/** The simulated host's management guest, reached over SSH on loopback like a real one. */
function simulatedMgmt(sim: SimulatedHost, opts: StandaloneOptions, log: Logger, registry: Registry): MgmtOps | undefined {
  if (!sim.mgmt) return undefined;
  const imageDirs = imageDirsOf(opts);
  const { port, username, password, hostKeySha256 } = sim.mgmt;
  return createMgmtOps({ endpoint: { host: '127.0.0.1', port, username, password, hostKeySha256 }, allowedDirs: imageDirs, http: opts.imageHttp, log, metrics: { registry, host: DEFAULT_HOST } });
}

export async function runStandalone(opts: StandaloneOptions): Promise<void> {
  const log = createLogger();
  const app = await startStandalone(opts, log);
  exitOnSignals(app.stop, log);
}
